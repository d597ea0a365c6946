package kiosk_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/sip2"
	"library/internal/testkit/apitest"
	"library/internal/testkit/sipclient"
)

// The rest of what a kiosk asks: a copy's state and line, a member's lists, renew all, holds
// placed and cancelled, and a checkout the kiosk made offline, recorded over the loan limit.
func TestItemsListsHoldsAndOfflineCheckouts(t *testing.T) {
	t.Parallel()
	lib := twoReplicas(t, func(c *app.Config) { c.MaxLoans = 2 })
	for _, c := range []struct{ id, barcode string }{{"dune", "30000000000001"}, {"emma", "30000000000002"}, {"ulysses", "30000000000003"}} {
		apitest.AddCopy(t, lib.http, c.id, c.id, c.barcode)
	}
	apitest.GiveCard(t, lib.http, "m1", "21000001", "1234")
	apitest.GiveCard(t, lib.http, "m2", "21000002", "9876")
	k := apitest.DialKiosk(t, lib.a.SIP, lib.terminal, lib.password)
	now := time.Now()

	item := k.Send(sipclient.ItemInformation(inst, "30000000000001", now))
	assert.Equal(t, "03", item.Fixed[0], "on the shelf")
	for i, barcode := range []string{"30000000000001", "30000000000002"} {
		out := k.Send(sipclient.Checkout(inst, "21000001", "1234", barcode, now.Add(time.Duration(i)*time.Second), false))
		require.Equal(t, "1", out.FixedField(sip2.OK), out.Value("AF"))
	}
	item = k.Send(sipclient.ItemInformation(inst, "30000000000001", now))
	assert.Equal(t, "04", item.Fixed[0], "on loan")
	assert.NotEmpty(t, item.Value("AH"), "with its due date")

	over := k.Send(sipclient.Checkout(inst, "21000001", "1234", "30000000000003", now.Add(2*time.Second), false))
	assert.Equal(t, "0", over.FixedField(sip2.OK), "MAX_LOANS is 2")
	assert.Contains(t, over.Value("AF"), "as many items as you may borrow at once (2 loans at once for adult).", "naming the rule")
	offline := k.Send(sipclient.Checkout(inst, "21000001", "1234", "30000000000003", now.Add(-time.Hour), true))
	require.Equal(t, "1", offline.FixedField(sip2.OK), "lent offline, recorded as the kiosk says: %s", offline.Value("AF"))
	assert.Equal(t, []string{"LoanLimitReached"}, overrode(t, lib.db, "ulysses-1"), "the log says what it overrode")

	apitest.CaughtUp(t, lib.http, "loans") // the items lists are the loans view's
	info := sipclient.PatronInformation(inst, "21000001", "1234", "001", now)
	info.Fixed[2] = "  Y       " // the charged items
	patron := k.Send(info)
	assert.Equal(t, "0003", patron.Fixed[5], "three charged")
	assert.ElementsMatch(t, []string{"30000000000001", "30000000000002", "30000000000003"}, patron.All("AU"))
	assert.Equal(t, "Y", string(patron.Fixed[0][5]), "too many items charged")

	all := k.Send(sipclient.RenewAll(inst, "21000001", "1234", now.Add(time.Minute)))
	require.Equal(t, "1", all.Fixed[0])
	assert.Len(t, append(all.All("BM"), all.All("BN")...), 3, "each loan, renewed or not")

	placed := k.Send(sipclient.Hold("+", inst, "21000002", "9876", "30000000000001", "", now))
	require.Equal(t, "1", placed.Fixed[0], placed.Value("AF"))
	item = k.Send(sipclient.ItemInformation(inst, "30000000000001", now))
	assert.Equal(t, "1", item.Value("CF"), "one member waits")
	renew := k.Send(sipclient.Renew(inst, "21000001", "1234", "30000000000001", now.Add(2*time.Minute), false))
	assert.Equal(t, "0", renew.FixedField(sip2.OK), "someone waits for it")
	cancelled := k.Send(sipclient.Hold("-", inst, "21000002", "9876", "30000000000001", "", now.Add(time.Second)))
	require.Equal(t, "1", cancelled.Fixed[0], cancelled.Value("AF"))

	unknown := k.Send(sipclient.Checkout(inst, "21000001", "1234", "39999999999999", now, false))
	assert.Equal(t, "0", unknown.FixedField(sip2.OK))
	assert.Contains(t, unknown.Value("AF"), "not known")
	stranger := k.Send(sipclient.PatronStatus(inst, "29999999", "1234", "001", now))
	assert.Equal(t, "N", stranger.Value("BL"), "an unknown card")

	r := lib.http.Get(t, "/accounts/m1")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "21000001", cardInMetadata(t, lib.db, "ulysses-1"), "the card shown, in the loan's metadata")
}

// overrode is what the copy's offline BookLent says it overrode.
func overrode(t *testing.T, db, bookID string) []string {
	t.Helper()
	var codes []string
	query(t, db, `SELECT data->'overrode' FROM events WHERE stream_id = $1 AND type = 'BookLent'`, &codes, "book-"+bookID)
	return codes
}

// cardInMetadata is the card in the metadata of the copy's BookLent.
func cardInMetadata(t *testing.T, db, bookID string) string {
	t.Helper()
	var card string
	query(t, db, `SELECT metadata->>'card' FROM events WHERE stream_id = $1 AND type = 'BookLent'`, &card, "book-"+bookID)
	return card
}

func query(t *testing.T, db, sql string, into any, args ...any) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	require.NoError(t, conn.QueryRow(ctx, sql, args...).Scan(into))
}
