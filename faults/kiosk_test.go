//go:build faults

package faults

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"library/internal/config"
	"library/internal/sip2"
	"library/internal/testkit/proctest"
	"library/internal/testkit/sipclient"
)

const (
	kioskRounds   = 8
	kioskTerminal = "kiosk-1"
	kioskCard     = "21000001"
	kioskPIN      = "4711"
	kioskInst     = "library" // SIP_INSTITUTION's default
)

// The replica a kiosk is connected to is SIGKILLed in the middle of a checkout, eight times, the
// two replicas in turn. Each time the kiosk reconnects to the other replica, logs in again and
// resends the checkout as it was (the same transaction date): it is answered ok, and the copy is
// lent once, under the loan id the kiosk's transaction derives (package kiosk's retries). The
// same message sent once more, to the replica restarted, gets the same answer byte for byte. In
// half the rounds the replica is killed as soon as the checkout is on the wire, wherever it has
// got to; in the other half once its loan is in the log, its answer written but never read.
func TestKioskCheckoutResentAfterItsReplicaIsKilled(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	a, b := s.start("a", "SIP_ADDR=127.0.0.1:0"), s.start("b", "SIP_ADDR=127.0.0.1:0")
	watch := watchCheckpoints(s.pool)
	password := addTerminal(t, s, kioskTerminal)

	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/m1", `{"name":"Member 1","email":"m1@example.org"}`)
	s.mustSucceed(b, http.MethodPut, "/accounts/m1/card", fmt.Sprintf(`{"cardNumber":%q}`, kioskCard))
	s.mustSucceed(a, http.MethodPut, "/accounts/m1/pin", fmt.Sprintf(`{"pin":%q}`, kioskPIN))
	type round struct{ bookID, barcode, loanID string }
	rounds := make([]round, kioskRounds)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range rounds {
		title := fmt.Sprintf("kiosk-title-%d", i)
		r := round{bookID: fmt.Sprintf("kiosk-copy-%d", i), barcode: fmt.Sprintf("3123400000%04d", i)}
		s.must(a, http.StatusCreated, http.MethodPost, "/titles",
			fmt.Sprintf(`{"id":%q,"title":"Kiosk Book %d","authors":["A. Writer"]}`, title, i))
		s.must(b, http.StatusCreated, http.MethodPost, "/titles/"+title+"/copies", fmt.Sprintf(`{"id":%q,"barcode":%q}`, r.bookID, r.barcode))
		rounds[i] = r
	}

	replicas := []*replica{a, b}
	recordedFirst, notRecorded := 0, 0
	var killToAnswer, resendAnswered []time.Duration
	var holderKills []time.Time // when the outbox's holder was killed
	for i := range rounds {
		r := &rounds[i]
		victim, other := replicas[i%2], replicas[(i+1)%2]
		atOnce := (i/2)%2 == 0 // each replica is killed in both ways
		date := start.Add(time.Duration(i) * time.Minute)
		line := checkoutLine(t, r.barcode, date)
		r.loanID = kioskTransactionID(kioskTerminal, "11", sip2.FormatDate(date), kioskCard, r.bookID)

		k := dialKiosk(t, victim, password)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := k.SendOnly(ctx, line)
		cancel()
		if err != nil {
			t.Fatalf("round %d: the checkout to %s: %v", i, victim.name, err)
		}
		if !atOnce {
			eventually(t, 30*time.Second, func() bool { return len(loansOf(t, s, r.bookID)) == 1 },
				"round %d: %s records the checkout", i, victim.name)
		}
		if held, _ := s.leaseHeld(victim, "notifications"); held {
			holderKills = append(holderKills, time.Now())
		}
		killed := time.Now()
		victim.kill()
		_ = k.Close()
		if len(loansOf(t, s, r.bookID)) > 0 {
			recordedFirst++
		} else {
			notRecorded++
		}

		// The kiosk reconnects to the other replica at once, and sends the checkout again.
		retry, took := resend(t, other, password, line)
		killToAnswer, resendAnswered = append(killToAnswer, time.Since(killed)), append(resendAnswered, took)
		answer := checkedOut(t, fmt.Sprintf("round %d: the retry on %s", i, other.name), retry)
		if got := loansOf(t, s, r.bookID); len(got) != 1 || got[0] != r.loanID {
			t.Errorf("round %d: %s's loans in the log %v, want one, %s (answered %q)", i, r.bookID, got, r.loanID, retry)
		}

		// Answered once: the same message to the replica restarted gets the retry's answer.
		victim.restart(t)
		again, _ := resend(t, victim, password, line)
		if withoutErrorDetection(again) != withoutErrorDetection(retry) {
			t.Errorf("round %d: sent again to %s, answered\n%q\nthe retry had\n%q", i, victim.name, again, retry)
		}
		if got := loansOf(t, s, r.bookID); len(got) != 1 {
			t.Errorf("round %d: %s lent %d times after the third send", i, r.bookID, len(got))
		}
		if answer.Value("AH") == "" {
			t.Errorf("round %d: no due date in %q", i, retry)
		}
	}

	// One loan per round, each under its transaction's id, and no other.
	var want []string
	for _, r := range rounds {
		want = append(want, r.loanID)
	}
	slices.Sort(want)
	if got := allLoanIDs(t, s); !slices.Equal(got, want) {
		t.Errorf("the log's loans %v, want %v", got, want)
	}
	eventually(t, time.Minute, func() bool { return slices.Equal(memberLoanIDs(t, s, a, "m1"), want) },
		"GET /accounts/m1/loans lists the %d loans", len(want))
	loansMade, emails, duplicates := loanEmails(t, s.pool, s.smtp, 2*time.Minute)
	perTakeover, unexplained := duplicatesPerKill(s.smtp.Messages(), holderKills)
	if unexplained > 0 {
		t.Errorf("%d emails were sent twice with no kill of the outbox's holder before them", unexplained)
	}
	if most := slices.Max(append(perTakeover, 0)); most > config.Defaults().SMTPMaxInFlight {
		t.Errorf("%d emails sent twice after one takeover: more than the emails in flight (%d)", most, config.Defaults().SMTPMaxInFlight)
	}
	catalogCaughtUp(t, s.pool, time.Minute)
	nothingParked(t, s.pool)
	watch.check(t)
	for i := range killToAnswer {
		killToAnswer[i], resendAnswered[i] = killToAnswer[i].Round(time.Millisecond), resendAnswered[i].Round(time.Millisecond)
	}
	t.Logf("FAULTS kiosk: rounds=%d SIGKILLs=%d recorded-before-the-kill=%d not-recorded=%d loans=%d answered-alike=%d "+
		"emails=%d duplicates=%d outbox-holder-kills=%d kill-to-answer=%v resend-answered-in=%v",
		kioskRounds, kioskRounds, recordedFirst, notRecorded, loansMade, kioskRounds, emails, duplicates, len(holderKills),
		killToAnswer, resendAnswered)
}

// mustSucceed sends one request to a replica and fails the test unless it gets a 2xx.
func (s *system) mustSucceed(r *replica, method, path, body string) {
	s.t.Helper()
	a, err := s.call(r, method, path, body)
	if err != nil || a.Status/100 != 2 {
		s.t.Fatalf("%s %s on %s: %v %d %s", method, path, r.name, err, a.Status, a.Body)
	}
}

// addTerminal adds a terminal as an operator does, with the built binary on the replicas'
// database (`library sip terminals add NAME`), and returns its password: the last line printed.
func addTerminal(t *testing.T, s *system, name string) string {
	t.Helper()
	p := proctest.Launch(t, []string{"DATABASE_URL=" + s.database}, "sip", "terminals", "add", name)
	if err := p.Wait(t, time.Minute); err != nil {
		t.Fatalf("sip terminals add %s: %v\n%s", name, err, p.Output())
	}
	lines := strings.Split(strings.TrimSpace(p.Output()), "\n")
	password := lines[len(lines)-1]
	if !regexp.MustCompile(`^[A-Z2-7]{26}$`).MatchString(password) {
		t.Fatalf("sip terminals add %s printed no password on its last line:\n%s", name, p.Output())
	}
	return password
}

// dialKiosk connects a kiosk to a replica's SIP listener and logs in as the terminal: the login
// is the connection's message 0, so the next is 1.
func dialKiosk(t *testing.T, r *replica, password string) *sipclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr := r.current().SIPAddr()
	if addr == "" {
		t.Fatalf("%s takes no kiosks:\n%s", r.name, r.logs())
	}
	k, err := sipclient.Dial(ctx, addr, sip2.Framing{})
	if err != nil {
		t.Fatalf("dialling %s's SIP listener: %v", r.name, err)
	}
	t.Cleanup(func() { _ = k.Close() })
	login, err := k.Send(ctx, sipclient.Login(kioskTerminal, password))
	if err != nil || login.Code != "94" || login.FixedField(sip2.OK) != "1" {
		t.Fatalf("the login on %s: %+v, %v", r.name, login, err)
	}
	return k
}

// checkoutLine is the kiosk's checkout of the copy to the member at date, as it goes on the
// wire after a login: sequence number 1 and its checksum.
func checkoutLine(t *testing.T, barcode string, date time.Time) []byte {
	t.Helper()
	m := sipclient.Checkout(kioskInst, kioskCard, kioskPIN, barcode, date, false)
	m.HasSeq, m.Seq = true, 1
	line, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// resend connects a kiosk to r, logs in, sends line and returns the answer as it came, and how
// long it took to come.
func resend(t *testing.T, r *replica, password string, line []byte) (string, time.Duration) {
	t.Helper()
	k := dialKiosk(t, r, password)
	defer func() { _ = k.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := time.Now()
	answer, err := k.SendRaw(ctx, line)
	if err != nil {
		t.Fatalf("the checkout sent to %s: %v", r.name, err)
	}
	return string(answer), time.Since(sent)
}

// checkedOut parses a checkout's answer and fails the test unless it is a 12 with ok 1 that
// echoes sequence number 1.
func checkedOut(t *testing.T, what, raw string) sip2.Message {
	t.Helper()
	m, err := sip2.Parse([]byte(raw))
	if err != nil {
		t.Fatalf("%s: answered %q: %v", what, raw, err)
	}
	if m.Code != "12" || m.FixedField(sip2.OK) != "1" || !m.HasSeq || m.Seq != 1 {
		t.Fatalf("%s: answered %q, want 12 with ok 1 and AY1", what, raw)
	}
	return m
}

// errorDetection is the end of a message: its sequence number and checksum.
var errorDetection = regexp.MustCompile(`AY[0-9]AZ[0-9A-F]{4}$`)

// withoutErrorDetection is an answer as a first try and its retry are compared: the sequence
// number is the connection's, not the transaction's, and the checksum covers it.
func withoutErrorDetection(raw string) string {
	return errorDetection.ReplaceAllString(raw, "")
}

// kioskTransactionID is the command id, and a checkout's loan id, that the service derives from
// a kiosk's message (package kiosk, transactionID): a hash of the terminal and the parts, each
// after its length, as "sip-" and 26 base32 characters.
func kioskTransactionID(terminal string, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{terminal}, parts...) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	return "sip-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h.Sum(nil))[:26])
}

// loansOf is the loan id of each BookLent in a copy's stream, checked against its command id.
func loansOf(t *testing.T, s *system, bookID string) []string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(),
		`SELECT data->>'loanId', metadata->>'commandId' FROM events WHERE stream_id = $1 AND type = 'BookLent' ORDER BY position`,
		"book-"+bookID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var loanID, commandID string
		if err := rows.Scan(&loanID, &commandID); err != nil {
			t.Fatal(err)
		}
		if loanID != commandID {
			t.Errorf("%s: loan %s recorded by command %s", bookID, loanID, commandID)
		}
		ids = append(ids, loanID)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// allLoanIDs is the loan id of every BookLent in the log, sorted.
func allLoanIDs(t *testing.T, s *system) []string {
	t.Helper()
	var ids []string
	if err := s.pool.QueryRow(context.Background(),
		`SELECT coalesce(array_agg(data->>'loanId' ORDER BY data->>'loanId' COLLATE "C"), '{}') FROM events WHERE type = 'BookLent'`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// memberLoanIDs is the loan ids GET /accounts/{memberId}/loans lists, sorted; nil when the
// replica did not answer 200.
func memberLoanIDs(t *testing.T, s *system, r *replica, memberID string) []string {
	t.Helper()
	a, err := s.call(r, http.MethodGet, "/accounts/"+memberID+"/loans", "")
	if err != nil || a.Status != http.StatusOK {
		return nil
	}
	var page struct {
		Loans []struct {
			LoanID string `json:"loanId"`
		} `json:"loans"`
	}
	if err := json.Unmarshal([]byte(a.Body), &page); err != nil {
		t.Fatalf("GET /accounts/%s/loans: %v: %s", memberID, err, a.Body)
	}
	ids := make([]string, 0, len(page.Loans))
	for _, l := range page.Loans {
		ids = append(ids, l.LoanID)
	}
	slices.Sort(ids)
	return ids
}
