package accounts_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// remembered is what the model knows of the command that recorded events under a key.
type remembered struct {
	name    string
	payload []byte // JSON of the payload
	answer  []byte // JSON of the first Result
}

// streamModel is the model of one account stream.
type streamModel struct {
	// history is the command id of every command that wrote to the stream (events, or the
	// NothingChanged marker of a keyed command), in order.
	history []string
	// version is the stream's version.
	version int64
	// first holds, by key, the command that last recorded events under the key.
	first   map[string]remembered
	balance int64
}

// inWindow reports whether key belongs to one of the last window commands of the stream, so
// that the service must recognise it.
func (m *streamModel) inWindow(key string, window int) bool {
	if key == "" {
		return false
	}
	return slices.Contains(m.history[max(0, len(m.history)-window):], key)
}

// TestServiceProperties runs random sequences of fines, payments and contact changes, with
// command ids drawn from a small set so that they repeat, and proves that:
//   - only NothingToPay, IdempotencyKeyReused and InvalidRequest are ever refused, and a key
//     is refused as reused exactly when it is remembered with another command or payload;
//   - (a) the balance is the sum of the recorded fines minus the recorded payments;
//   - (b) the events of one command id form one contiguous run, written by one append, with
//     one command name and one fingerprint, and an id reappears only after it left the window,
//     which only keyed commands take places in;
//   - (c) a replayed answer is byte for byte the first answer, and a remembered key is never
//     decided again;
//   - (d) a loan is fined at most once per account.
func TestServiceProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		window := rapid.IntRange(1, 20).Draw(t, "window")
		store := eventstore.NewMemory(nil)
		// Reasons and names are sealed in the log, as the service keeps them: a replay reads
		// them back and opens them.
		svc := accounts.NewService(store, aggregate.Options{CommandIDsPerStream: window, Cipher: keyring(store)})

		members := []string{"alice", "bob"}
		model := map[string]*streamModel{}
		for _, m := range members {
			model[m] = &streamModel{first: map[string]remembered{}}
		}
		keys := rapid.SampledFrom([]string{"", "k1", "k2", "k3", "k4"})
		amounts := rapid.OneOf(
			rapid.SampledFrom([]int64{100, 250, 500, 1000}), // small set: repeats give replays
			rapid.Int64Range(1, 100_000_000),
			rapid.SampledFrom([]int64{0, -1, 100_000_001}), // invalid
		)
		loans := rapid.SampledFrom([]string{"", "l1", "l2", "l3", "bad loan"})
		reasons := rapid.SampledFrom([]string{"late", "damaged", " "})
		names := rapid.SampledFrom([]string{"Ann", "Bo", ""})
		emails := rapid.SampledFrom([]string{"", "ann@example.org", "Ann <ann@example.org>"})

		steps := rapid.IntRange(1, 60).Draw(t, "steps")
		for range steps {
			member := rapid.SampledFrom(members).Draw(t, "member")
			key := keys.Draw(t, "key")
			origin := aggregate.Origin{CommandID: key}
			var (
				name    string
				payload any
				res     aggregate.Result
				err     error
			)
			switch rapid.IntRange(0, 2).Draw(t, "command") {
			case 0:
				c := accounts.ChargeFine{Amount: amounts.Draw(t, "amount"), Reason: reasons.Draw(t, "reason"), LoanID: loans.Draw(t, "loanId")}
				name, payload = "chargeFine", c
				res, err = svc.ChargeFine(ctx, member, c, origin)
			case 1:
				c := accounts.Pay{Amount: amounts.Draw(t, "amount")}
				name, payload = "pay", c
				res, err = svc.Pay(ctx, member, c, origin)
			default:
				c := accounts.SetContact{Name: names.Draw(t, "name"), Email: emails.Draw(t, "email")}
				name, payload = "setContact", c
				res, err = svc.SetContact(ctx, member, c, origin)
			}
			payloadJSON, jerr := json.Marshal(payload)
			require.NoError(t, jerr)

			m := model[member]
			past, inWindow := m.first[key], m.inWindow(key, window)
			sameCommand := past.name == name && string(past.payload) == string(payloadJSON)

			if err != nil {
				code := errs.CodeOf(err)
				require.Contains(t, []errs.Code{errs.NothingToPay, errs.IdempotencyKeyReused, errs.InvalidRequest}, code, "unexpected error %v", err)
				if code == errs.IdempotencyKeyReused {
					require.True(t, inWindow, "only a remembered key is refused as reused")
					require.False(t, sameCommand, "the same command and payload is replayed, not refused")
					continue
				}
				if code == errs.InvalidRequest {
					continue // checked before the key is looked at
				}
				require.False(t, inWindow, "a remembered key is answered from the log, not decided again: %v", err)
				if code == errs.NothingToPay {
					require.LessOrEqual(t, m.balance, int64(0), "NothingToPay with a balance of %d", m.balance)
				}
				continue
			}

			answer, jerr := json.Marshal(res)
			require.NoError(t, jerr)
			if res.Replayed {
				// (c): a replay is the first answer, byte for byte.
				require.True(t, inWindow, "replayed a key that had left the window")
				require.True(t, sameCommand, "replayed another command or payload")
				require.Equal(t, string(past.answer), string(answer))
				continue
			}
			require.False(t, inWindow, "key %q is remembered but the command was decided again", key)
			if res.Version == m.version {
				require.False(t, res.Recorded())
				require.True(t, key == "" || m.version == 0, "a keyed command that changed nothing is recorded")
				continue
			}
			m.version = res.Version
			if name == "pay" {
				require.Greater(t, m.balance, int64(0), "a payment was taken with a balance of %d", m.balance)
			}
			for _, e := range res.Events {
				switch e := e.Data.(type) {
				case accounts.FineCharged:
					m.balance += e.Amount
				case accounts.PaymentReceived:
					m.balance -= e.Amount
				}
			}
			if key != "" { // only keyed commands take a place in the window
				m.history = append(m.history, key)
				m.first[key] = remembered{name: name, payload: payloadJSON, answer: answer}
			}
		}

		for _, member := range members {
			checkStream(ctx, t, store, svc, member, window, model[member])
		}
	})
}

// checkStream checks properties (a), (b) and (d) on the recorded stream of one member.
func checkStream(ctx context.Context, t *rapid.T, store *eventstore.Memory, svc *accounts.Service, member string, window int, m *streamModel) {
	events, err := store.ReadStream(ctx, accounts.Type().StreamID(member), 0)
	require.NoError(t, err)

	var sum int64
	fined := map[string]bool{}
	var runs []eventstore.Event // the first event of each run of one command id
	for i, e := range events {
		switch e.Type {
		case "FineCharged":
			var f accounts.FineCharged
			require.NoError(t, json.Unmarshal(e.Data, &f))
			sum += f.Amount
			if f.LoanID != "" {
				// (d): a loan is fined at most once.
				require.False(t, fined[f.LoanID], "loan %s fined twice", f.LoanID)
				fined[f.LoanID] = true
			}
		case "PaymentReceived":
			var p accounts.PaymentReceived
			require.NoError(t, json.Unmarshal(e.Data, &p))
			sum -= p.Amount
		}

		if e.Metadata.CommandID == "" {
			continue // a command without a key: nothing to remember it by
		}
		if i > 0 && events[i-1].Metadata.CommandID == e.Metadata.CommandID {
			// (b): a run is one command: one append, one name, one fingerprint.
			prev := events[i-1]
			require.Equal(t, prev.TransactionID, e.TransactionID, "one command id on two appends in a row")
			require.Equal(t, prev.Metadata, e.Metadata)
			continue
		}
		// (b): an id starts a new run only if its previous run has left the window.
		for j := len(runs) - 1; j >= 0; j-- {
			if runs[j].Metadata.CommandID == e.Metadata.CommandID {
				require.Greater(t, len(runs)-j, window, "command id %q reused while still remembered", e.Metadata.CommandID)
				break
			}
		}
		runs = append(runs, e)
	}
	runIDs := make([]string, len(runs))
	for i, r := range runs {
		runIDs[i] = r.Metadata.CommandID
	}
	require.Equal(t, m.history, append([]string(nil), runIDs...), "the stream holds the commands that wrote, in order")

	// (a): the balance is fines minus payments.
	require.Equal(t, m.balance, sum)
	account, version, err := svc.Get(ctx, member)
	if len(events) == 0 {
		require.True(t, errs.Is(err, errs.NotFound))
		return
	}
	require.NoError(t, err)
	require.Equal(t, int64(len(events)), version)
	require.Equal(t, sum, account.Balance)
}
