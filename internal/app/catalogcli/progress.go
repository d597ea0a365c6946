package catalogcli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"library/internal/catalogimport"
)

// importProgress shows how far an import of a file is: on a terminal, a bar redrawn in place
// with the records per second and the time left; otherwise (a log) a line every few seconds.
type importProgress struct {
	w        io.Writer // nil: nothing is shown
	terminal bool
	path     string
	size     int64
	read     *countingReader
	started  time.Time
	shown    time.Time
	from     int // records read before this file
}

// How often progress is shown: on a terminal, and in a log.
const (
	barEvery  = 200 * time.Millisecond
	lineEvery = 5 * time.Second
	barWidth  = 30
)

func newImportProgress(w io.Writer, path string, size int64, read *countingReader, from int) *importProgress {
	p := &importProgress{w: w, path: path, size: size, read: read, started: time.Now(), from: from}
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil {
			p.terminal = info.Mode()&os.ModeCharDevice != 0
		}
	}
	return p
}

// show shows the progress, if it is time to.
func (p *importProgress) show(s *catalogimport.Summary) {
	if p.w == nil {
		return
	}
	every := lineEvery
	if p.terminal {
		every = barEvery
	}
	if time.Since(p.shown) < every {
		return
	}
	p.shown = time.Now()
	p.print(s)
}

// done shows the file's last progress, and ends the bar's line.
func (p *importProgress) done(s *catalogimport.Summary) {
	if p.w == nil {
		return
	}
	p.print(s)
	if p.terminal {
		_, _ = fmt.Fprintln(p.w) // progress is shown at best: a terminal gone is no reason to stop
	}
}

func (p *importProgress) print(s *catalogimport.Summary) {
	took := time.Since(p.started)
	fraction := 1.0
	if p.size > 0 {
		fraction = min(float64(p.read.n)/float64(p.size), 1)
	}
	rate := float64(s.Read-p.from) / max(took.Seconds(), 0.001)
	left := "?"
	if fraction > 0 {
		left = (time.Duration(float64(took) * (1 - fraction) / fraction)).Round(time.Second).String()
	}
	if p.terminal {
		filled := int(fraction * barWidth)
		_, _ = fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%% %d records, %.0f/s, %s left ", p.path, strings.Repeat("=", filled),
			strings.Repeat(" ", barWidth-filled), 100*fraction, s.Read, rate, left)
		return
	}
	_, _ = fmt.Fprintf(p.w, "import %s: %.0f%%, %s, %.0f records/s, %s left\n", p.path, 100*fraction, s, rate, left)
}
