package kiosk_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/sip2"
	"library/internal/testkit/apitest"
	"library/internal/testkit/sipclient"
)

// Five wrong PINs from two kiosks on two replicas lock the card at every kiosk: the sixth try,
// with the right PIN, is refused, and a wrong PIN said only "invalid".
func TestFiveWrongPINsLockTheCardEverywhere(t *testing.T) {
	t.Parallel()
	clock := apitest.NewClock()
	lib := twoReplicas(t, func(c *app.Config) { c.Tuning.Now = clock.Now })
	apitest.GiveCard(t, lib.http, "m1", "21000001", "1234")
	ka := apitest.DialKiosk(t, lib.a.SIP, lib.terminal, lib.password)
	kb := apitest.DialKiosk(t, lib.b.SIP, lib.terminal, lib.password)

	right := ka.Send(sipclient.PatronStatus(inst, "21000001", "1234", "001", time.Now()))
	require.Equal(t, "Y", right.Value("CQ"), "the right PIN, before")
	for i, k := range []*apitest.Kiosk{ka, kb, ka, kb, ka} {
		wrong := k.Send(sipclient.PatronStatus(inst, "21000001", "0000", "001", time.Now()))
		require.Equal(t, "N", wrong.Value("CQ"), "try %d", i+1)
		require.Equal(t, "invalid", wrong.Value("AF"), "a wrong PIN says only that")
	}
	for _, k := range []*apitest.Kiosk{kb, ka} {
		locked := k.Send(sipclient.PatronStatus(inst, "21000001", "1234", "001", time.Now()))
		assert.Equal(t, "N", locked.Value("CQ"), "the right PIN, while the card is locked")
		assert.NotEqual(t, "invalid", locked.Value("AF"))
		out := k.Send(sipclient.Checkout(inst, "21000001", "1234", "31234000000017", time.Now(), false))
		assert.Equal(t, "0", out.FixedField(sip2.OK), "nothing is lent on a locked card")
	}
	clock.Advance(15*time.Minute + time.Second)
	after := kb.Send(sipclient.PatronStatus(inst, "21000001", "1234", "001", clock.Now()))
	assert.Equal(t, "Y", after.Value("CQ"), "the right PIN once SIP_PIN_LOCKOUT has passed")
}
