package marc_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/marc"
)

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return out.Bytes()
}

// The reader tells the formats apart by their content, gzip or not.
func TestReaderTellsTheFormatsApart(t *testing.T) {
	t.Parallel()
	recs := []marc.Record{dune(), small("2")}
	isoBytes, xmlBytes := iso(t, recs...), marcXML(t, recs...)
	for _, c := range []struct {
		name   string
		input  []byte
		format marc.Format
		gzip   bool
	}{
		{"ISO 2709", isoBytes, marc.ISO2709, false},
		{"MARCXML", xmlBytes, marc.MARCXML, false},
		{"MARCXML after blank lines", append([]byte("\n\n  "), xmlBytes...), marc.MARCXML, false},
		{"ISO 2709, gzip", gzipped(t, isoBytes), marc.ISO2709, true},
		{"MARCXML, gzip", gzipped(t, xmlBytes), marc.MARCXML, true},
		{"ISO 2709, two gzip members", concat(gzipped(t, iso(t, recs[0])), gzipped(t, iso(t, recs[1]))), marc.ISO2709, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := mustReader(t, c.input)
			assert.Equal(t, c.format, r.Format())
			assert.Equal(t, c.gzip, r.Gzipped())
			got, results := readAll(t, r, 1<<20)
			require.Equal(t, []string{"ocm00012345", "2"}, outline(results))
			for i := range recs {
				requireSameRecord(t, recs[i], got[i])
			}
		})
	}
}

func TestReaderOfNothing(t *testing.T) {
	t.Parallel()
	for name, input := range map[string][]byte{"empty": nil, "gzip of nothing": gzipped(t, nil), "blank lines": []byte("\n\r\n")} {
		r := mustReader(t, input)
		_, err := r.Next()
		assert.ErrorIs(t, err, io.EOF, name)
		_, err = r.Next()
		assert.ErrorIs(t, err, io.EOF, name+": again")
	}
}

// A gzip file cut short is a truncated file: the records before the cut are read.
func TestReaderGzipCutShort(t *testing.T) {
	t.Parallel()
	for name, input := range map[string][]byte{
		"ISO 2709": iso(t, small("1"), dune(), dune(), dune()),
		"MARCXML":  marcXML(t, small("1"), dune(), dune(), dune()),
	} {
		z := gzipped(t, input)
		r := mustReader(t, z[:len(z)*2/3])
		_, results := readAll(t, r, len(input))
		require.NotEmpty(t, results, name)
		assert.Equal(t, "1", results[0].id, name)
		assert.Equal(t, "!truncated", outline(results)[len(results)-1], name)
	}
}

// What is wrong with the input itself, rather than a record (a read that fails, a corrupt gzip
// stream), is returned as it is, and again on every call after.
func TestReaderInputErrorsStay(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	input := iso(t, small("1"), small("2"))
	r := marc.NewISO2709Reader(io.MultiReader(bytes.NewReader(input[:len(input)/2+30]), iotest.ErrReader(boom)))
	_, err := r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	require.ErrorIs(t, err, boom)
	assert.Empty(t, marc.ReasonOf(err))
	_, err = r.Next()
	require.ErrorIs(t, err, boom)

	xr := marc.NewXMLReader(io.MultiReader(bytes.NewReader(marcXML(t, small("1"))[:100]), iotest.ErrReader(boom)))
	_, err = xr.Next()
	require.ErrorIs(t, err, boom)
	_, err = xr.Next()
	require.ErrorIs(t, err, boom)

	z := gzipped(t, iso(t, small("1"), small("2")))
	z[len(z)-6] ^= 0xff // the CRC-32 at the end
	r = mustReader(t, z)
	_, err = r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	require.NoError(t, err)
	_, err = r.Next()
	require.ErrorIs(t, err, gzip.ErrChecksum)

	_, err = marc.NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 0x08}))
	require.Error(t, err, "a gzip header cut short")
}

// repeat is a reader of n copies of b, made as they are read: a file of any size that is never
// in memory.
type repeat struct {
	b    []byte
	n    int
	rest []byte
}

func (r *repeat) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		if r.n == 0 {
			return 0, io.EOF
		}
		r.n--
		r.rest = r.b
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// Memory stays flat however large the file: reading 16 MB of records, and of a bad record's
// garbage, grows the heap by far less than that. The collector runs often meanwhile, so that
// the heap is what is kept, not what is waiting to be collected. Not parallel: it measures the
// heap, so it runs alone.
func TestReaderMemoryStaysFlat(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	const size = 16 << 20
	garbage := bytes.Repeat([]byte("x"), 1<<20)
	one, oneXML := iso(t, dune()), marcXML(t, dune())[len(`<?xml version="1.0" encoding="UTF-8"?>`):]
	for name, input := range map[string]func() io.Reader{
		"ISO 2709": func() io.Reader { return &repeat{b: one, n: size / len(one)} },
		"MARCXML": func() io.Reader {
			return io.MultiReader(bytes.NewReader([]byte("<collection>")), &repeat{b: oneXML, n: size / 4 / len(oneXML)})
		},
		"ISO 2709 garbage": func() io.Reader {
			return io.MultiReader(bytes.NewReader([]byte("00100")), &repeat{b: garbage, n: size >> 20})
		},
	} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := marc.NewReader(input())
		require.NoError(t, err)
		n, peak := 0, uint64(0)
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) || err != nil && marc.ReasonOf(err) == "" {
				break
			}
			if n++; n%512 == 0 {
				runtime.ReadMemStats(&after)
				peak = max(peak, after.HeapInuse)
			}
		}
		runtime.ReadMemStats(&after)
		peak = max(peak, after.HeapInuse)
		assert.Positive(t, n, name)
		grown := int64(peak) - int64(before.HeapInuse)
		assert.Less(t, grown, int64(size/4), "%s: the heap grew by %d bytes at most", name, grown)
		t.Logf("%s: %d records, the heap grown by %d bytes at most", name, n, grown)
		runtime.KeepAlive(r)
	}
}
