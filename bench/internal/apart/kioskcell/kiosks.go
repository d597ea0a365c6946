package kioskcell

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// The kiosks' checkouts: a checkout at a self-check kiosk over SIP2 against the same checkout
// over HTTP (POST /books/{bookId}/loans, AUTH=off as in the other cells), on one service process
// of its own (SIP_ADDR on a loopback port) and a database of its own, at each of KioskLevels.
// At each level, each door has the run's warm-up, and then the run's duration is measured in
// KioskRounds rounds of both doors, in turns (see level).
//
//   - SIP2: each worker is a kiosk, one connection logged in (93) as the terminal the binary's
//     `sip terminals add` made, with a member of its own: before the warm-up, every kiosk shows
//     its member by card and PIN (a 23, patron status, KioskShowers kiosks at once), which has the
//     member's account check the PIN (argon2id) once; the session then remembers the card, and
//     each checkout (11) carries the card and the PIN again, as kiosks send them, and is answered
//     from the session's keyed hash of the PIN. The shows are timed apart, not in the cells.
//     A session remembers one member: a kiosk whose members took turns would pay for a PIN
//     check at each turn.
//   - HTTP: each worker lends to a member of its own, on a keep-alive connection of its own,
//     with a loan id of its own.
//
// Every checkout is of a copy nobody has had: the copies are added beforehand through POST
// /books, each a title of its own with a barcode, and taken in turn by the workers of a cell
// (the kiosks by barcode, HTTP by book id). The members of each cell are their own (80 in all
// at 8 and 32), each given a card and a PIN through the API, so that the loans on an account
// are as many in each cell; MAX_LOANS is out of the way (the run's services have it at 10⁹).
const (
	kioskTerminal = "bench-kiosk"
	kioskPIN      = "2468"
	kioskInst     = "library" // SIP_INSTITUTION's default
	// kioskHeadroom is how many times more copies than the warm-up's pace would use a cell is
	// given: a cell that ran out of copies would measure nothing.
	kioskHeadroom = 2
	kioskAdders   = 16 // copies and members are added this many at a time
)

// KioskShowers is how many kiosks log in and show their member at once, before a cell: each
// login and each show has an argon2id hash checked (the terminal's password, the PIN), a few
// tens of milliseconds of a core, so that a level's kiosks all at once, on a small machine
// shared with other work, queue for the cores past the service's message timeout.
const KioskShowers = 2

// KioskLevels are the kiosks at once, and the HTTP clients at once, measured.
var KioskLevels = []int{8, 32}

// The two doors a checkout comes through.
const (
	DoorSIP  = "SIP2"
	DoorHTTP = "HTTP"
)

// KioskShows are the patron statuses that showed a level's members, KioskShowers at once: each
// has its member's PIN checked.
type KioskShows struct {
	Kiosks   int
	P50, Max time.Duration
}

// KiosksResult is what the kiosks' measurement found.
type KiosksResult struct {
	Cells  []measure.Cell // Measurement is the door: SIP2 then HTTP at each level
	Shows  []KioskShows
	Copies int // added, for the cells and their warm-ups
	Setup  time.Duration
	// Env is the machine as the measurement began, with the load average after it.
	Env environment.Machine
}

// Measured reports whether the result holds figures.
func (r KiosksResult) Measured() bool { return len(r.Cells) > 0 }

// Cell is the door's cell at the level, and whether there is one.
func (r KiosksResult) Cell(door string, kiosks int) (measure.Cell, bool) {
	for _, c := range r.Cells {
		if c.Measurement == door && c.Concurrency == kiosks {
			return c, true
		}
	}
	return measure.Cell{}, false
}

// Ratio is SIP2's throughput over HTTP's at the level, 0 when either is missing.
func (r KiosksResult) Ratio(kiosks int) float64 {
	s, ok1 := r.Cell(DoorSIP, kiosks)
	h, ok2 := r.Cell(DoorHTTP, kiosks)
	if !ok1 || !ok2 || h.Throughput() == 0 {
		return 0
	}
	return s.Throughput() / h.Throughput()
}

// Kiosks starts a service with a SIP listener on the empty database at databaseURL, adds its
// terminal, and measures the checkouts at each level, through each door.
func Kiosks(ctx context.Context, cfg environment.Config, bin, databaseURL string, env environment.Machine) (KiosksResult, error) {
	res := KiosksResult{Env: env}
	port, err := environment.FreePort()
	if err != nil {
		return res, err
	}
	sipAddr := "127.0.0.1:" + strconv.Itoa(port)
	svc, err := environment.StartService(ctx, bin, databaseURL, "REPLICA_ID=bench-kiosks", "SIP_ADDR="+sipAddr)
	if err != nil {
		return res, err
	}
	defer svc.StopLogged(ctx, "the kiosks' service")
	out, err := environment.RunCommand(ctx, bin, databaseURL, "sip", "terminals", "add", kioskTerminal)
	if err != nil {
		return res, err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	k := &kiosks{cfg: cfg, svc: svc, sipAddr: sipAddr, password: strings.TrimSpace(lines[len(lines)-1]),
		api: workload.NewClient(svc.BaseURL, figures.MaxOf(KioskLevels))}
	defer k.api.HTTP.CloseIdleConnections()
	start := time.Now()
	if err := k.addMembers(ctx); err != nil {
		return res, err
	}
	res.Setup = time.Since(start)
	for _, level := range KioskLevels {
		cells, err := k.level(ctx, level, &res)
		if err != nil {
			return res, fmt.Errorf("at %d: %w", level, err)
		}
		for _, c := range cells {
			res.Cells = append(res.Cells, c)
			environment.Logf("kiosks: %-5s c=%-3d %7.1f checkouts/s  p50 %-9s p99 %-9s errors %d", c.Measurement, level, c.Throughput(),
				figures.FormatLatency(c.P50), figures.FormatLatency(c.P99), c.Errors)
		}
	}
	res.Copies = int(k.added)
	res.Env.LoadAfter = environment.LoadAverage()
	return res, nil
}

// kiosks is the measurement's state: the service, its terminal, and the copies.
type kiosks struct {
	cfg               environment.Config
	svc               *environment.Service
	sipAddr, password string
	api               *workload.Client
	added             int64        // copies added: copy i is kioskBook(i), barcode kioskBarcode(i)
	next              atomic.Int64 // the next copy not yet lent
	pace              float64      // the fastest checkouts or adds per second seen, for the copies' stock
}

func kioskBook(i int64) string    { return fmt.Sprintf("kiosk-b%06d", i) }
func kioskBarcode(i int64) string { return fmt.Sprintf("KB%06d", i) }

// kioskMember is worker w's member in the door's cell at the level, and card its card.
func kioskMember(door string, level, w int) string {
	return fmt.Sprintf("kiosk-%s-%d-m%02d", strings.ToLower(door), level, w)
}
func kioskCard(door string, level, w int) string {
	return fmt.Sprintf("%s%02d%02d", strings.ToUpper(door[:1]), level, w)
}

// errOutOfCopies is a checkout that found no copy left: the stock was too small.
var errOutOfCopies = errors.New("no copy left to lend: the stock of copies was too small")

// take is the next copy to lend.
func (k *kiosks) take() (int64, error) {
	i := k.next.Add(1) - 1
	if i >= k.added {
		time.Sleep(100 * time.Millisecond) // not a loop of instant errors until the cell ends
		return 0, errOutOfCopies
	}
	return i, nil
}

// addMembers gives every cell's members a card and a PIN, KioskShowers at a time: the service
// hashes each PIN with argon2id.
func (k *kiosks) addMembers(ctx context.Context) error {
	var jobs []func() error
	for _, level := range KioskLevels {
		for _, door := range []string{DoorSIP, DoorHTTP} {
			for w := range level {
				member := kioskMember(door, level, w)
				card := kioskCard(door, level, w)
				jobs = append(jobs, func() error {
					base := "/accounts/" + url.PathEscape(member)
					if err := k.put(ctx, base+"/card", fmt.Sprintf(`{"cardNumber":%q}`, card)); err != nil {
						return err
					}
					return k.put(ctx, base+"/pin", fmt.Sprintf(`{"pin":%q}`, kioskPIN))
				})
			}
		}
	}
	return inParallel(ctx, KioskShowers, len(jobs), func(i int) error { return jobs[i]() })
}

// put sends a PUT and wants 200 or 201.
func (k *kiosks) put(ctx context.Context, path, body string) error {
	a, err := k.api.Request(ctx, http.MethodPut, path, body)
	if err != nil {
		return fmt.Errorf("PUT %s: %w", path, err)
	}
	if a.Status != http.StatusOK && a.Status != http.StatusCreated {
		return fmt.Errorf("PUT %s: %d %s; the service said: %s", path, a.Status, strings.TrimSpace(string(a.Body)), k.svc.Output())
	}
	return nil
}

// stock adds copies until at least n are left to lend, and notes the pace of the adds.
func (k *kiosks) stock(ctx context.Context, n int) error {
	left := k.added - k.next.Load()
	if left >= int64(n) {
		return nil
	}
	from, more := k.added, int64(n)-max(left, 0)
	start := time.Now()
	err := inParallel(ctx, kioskAdders, int(more), func(i int) error {
		id := from + int64(i)
		body := fmt.Sprintf(`{"id":%q,"title":"Kiosk book %06d","author":"A. Author","barcode":%q}`, kioskBook(id), id, kioskBarcode(id))
		a, err := k.api.Request(ctx, http.MethodPost, "/books", body)
		if err != nil {
			return err
		}
		if a.Status != http.StatusCreated {
			return fmt.Errorf("POST /books: %d %s", a.Status, strings.TrimSpace(string(a.Body)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if k.next.Load() > k.added { // a cell that ran out took numbers past the end
		k.next.Store(k.added)
	}
	k.added += more
	k.pace = max(k.pace, float64(more)/time.Since(start).Seconds())
	return nil
}

// prepare readies the door's workers at the level and returns their operation, and what ends
// them: for SIP2, a kiosk each, logged in, its member shown (timed into res.Shows).
func (k *kiosks) prepare(ctx context.Context, door string, level int, res *KiosksResult) (workload.Operation, func(), error) {
	if door == DoorHTTP {
		api := workload.NewClient(k.api.BaseURL, level)
		var loans atomic.Int64
		return func(ctx context.Context, w int) error {
			i, err := k.take()
			if err != nil {
				return err
			}
			loan := fmt.Sprintf("kiosk-http-%d-l%d", level, loans.Add(1))
			return api.LendAs(ctx, kioskBook(i), loan, kioskMember(door, level, w))
		}, api.HTTP.CloseIdleConnections, nil
	}
	ks := make([]*sipKiosk, level)
	closeAll := func() {
		for _, kk := range ks {
			if kk != nil {
				kk.close()
			}
		}
	}
	shows := make([]time.Duration, level)
	var mu sync.Mutex
	err := inParallel(ctx, KioskShowers, level, func(w int) error {
		kk, err := dialKiosk(ctx, k.sipAddr, kioskTerminal, k.password)
		if err != nil {
			return err
		}
		mu.Lock()
		ks[w] = kk
		mu.Unlock()
		start := time.Now()
		if err := kk.showMember(kioskInst, kioskCard(door, level, w), kioskPIN); err != nil {
			return fmt.Errorf("%w; the service said: %s", err, k.svc.Output())
		}
		shows[w] = time.Since(start)
		return nil
	})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	slices.Sort(shows)
	res.Shows = append(res.Shows, KioskShows{Kiosks: level, P50: figures.Percentile(shows, 0.5), Max: shows[len(shows)-1]})
	return func(_ context.Context, w int) error {
		i, err := k.take()
		if err != nil {
			return err
		}
		return ks[w].checkout(kioskInst, kioskCard(door, level, w), kioskPIN, kioskBarcode(i))
	}, closeAll, nil
}

// inParallel runs job(0) to job(n-1), at most width at a time, and returns the first error.
func inParallel(ctx context.Context, width, n int, job func(i int) error) error {
	var next atomic.Int64
	errs := make([]error, width)
	var wg sync.WaitGroup
	for g := range width {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := job(i); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}
