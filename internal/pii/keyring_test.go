package pii_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/pii"
)

func kek(id string, b byte) pii.KEK {
	var k [32]byte
	for i := range k {
		k[i] = b
	}
	return pii.NewKEK(id, k)
}

// A sealed value opens with its member's key, bound to where it was sealed; once the key is
// gone it opens as Erased, never as an error or as the sealed text.
func TestSealAndErase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	ring := pii.NewKeyring(pii.KEKs{kek("1", 1)}, store)
	none, err := ring.Sealer(ctx, "alice", false)
	require.NoError(t, err)
	require.Nil(t, none, "no key is made unless asked")

	seal, err := ring.Sealer(ctx, "alice", true)
	require.NoError(t, err)
	sealed, err := seal("account-alice/1", "Alice Liddell")
	require.NoError(t, err)
	assert.True(t, pii.IsSealed(sealed))
	assert.NotContains(t, sealed, "Alice")
	empty, err := seal("account-alice/1", "")
	require.NoError(t, err)
	assert.Empty(t, empty, "nothing to hide")

	open, err := ring.Opener(ctx, "alice")
	require.NoError(t, err)
	plain, err := open("account-alice/1", sealed)
	require.NoError(t, err)
	assert.Equal(t, "Alice Liddell", plain)
	_, err = open("account-alice/2", sealed)
	require.Error(t, err, "a value moved to another event does not open")
	unsealed, err := open("account-alice/1", "not sealed")
	require.NoError(t, err)
	assert.Equal(t, "not sealed", unsealed, "values from before sealing read as they are")

	_, err = store.Erase(ctx, "account-alice", 0, []eventstore.NewEvent{{Type: "MemberErased", Data: []byte(`{}`)}}, "alice")
	require.NoError(t, err)
	ring.Forget("alice") // as the erasing replica does; another drops its copy within a minute
	open, err = ring.Opener(ctx, "alice")
	require.NoError(t, err)
	gone, err := open("account-alice/1", sealed)
	require.NoError(t, err)
	assert.Equal(t, pii.Erased, gone)
	late, err := ring.Sealer(ctx, "alice", false)
	require.NoError(t, err)
	assert.Nil(t, late, "an erased member gets no key from a late writer")
	late, err = ring.Sealer(ctx, "alice", true)
	require.NoError(t, err)
	assert.Nil(t, late, "even one that would make a key")
	_, err = store.AddDataKey(ctx, "alice", pii.WrappedKey{KEKID: "1", Wrapped: []byte("a key")})
	require.ErrorIs(t, err, pii.ErrErased, "the store refuses them one")
}

// countingStore counts the reads of member_keys.
type countingStore struct {
	pii.Store
	reads int
}

func (s *countingStore) DataKey(ctx context.Context, owner string) (pii.WrappedKey, error) {
	s.reads++
	return s.Store.DataKey(ctx, owner)
}

// A replica keeps the data keys it unwrapped: sealing and opening again reads member_keys no
// more, until the member is forgotten.
func TestKeysAreKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &countingStore{Store: eventstore.NewMemory(nil)}
	ring := pii.NewKeyring(pii.KEKs{kek("1", 1)}, store)
	seal, err := ring.Sealer(ctx, "alice", true)
	require.NoError(t, err)
	sealed, err := seal("account-alice/1", "Alice Liddell")
	require.NoError(t, err)
	reads := store.reads
	for range 3 {
		_, err := ring.Sealer(ctx, "alice", true)
		require.NoError(t, err)
		open, err := ring.Opener(ctx, "alice")
		require.NoError(t, err)
		plain, err := open("account-alice/1", sealed)
		require.NoError(t, err)
		require.Equal(t, "Alice Liddell", plain)
	}
	assert.Equal(t, reads, store.reads, "the kept key is used")
	ring.Forget("alice")
	_, err = ring.Opener(ctx, "alice")
	require.NoError(t, err)
	assert.Equal(t, reads+1, store.reads, "a forgotten key is read again")
}

// Rotation rewraps every data key with the first KEK, after which the old one can be dropped.
func TestRotate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	old := pii.NewKeyring(pii.KEKs{kek("1", 1)}, store)
	seal, err := old.Sealer(ctx, "bob", true)
	require.NoError(t, err)
	sealed, err := seal("ad", "bob@example.org")
	require.NoError(t, err)

	both := pii.NewKeyring(pii.KEKs{kek("2", 2), kek("1", 1)}, store)
	n, err := both.Rotate(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = both.Rotate(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to rewrap")

	onlyNew := pii.NewKeyring(pii.KEKs{kek("2", 2)}, store)
	open, err := onlyNew.Opener(ctx, "bob")
	require.NoError(t, err)
	plain, err := open("ad", sealed)
	require.NoError(t, err)
	assert.Equal(t, "bob@example.org", plain, "the log was not rewritten")
	_, err = pii.NewKeyring(pii.KEKs{kek("3", 3)}, store).Opener(ctx, "bob")
	require.ErrorContains(t, err, `"2"`, "a KEK that is missing is named")
}

func TestParseKEKs(t *testing.T) {
	t.Parallel()
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	keks, err := pii.ParseKEKs(key)
	require.NoError(t, err)
	require.Len(t, keks, 1)
	assert.Equal(t, "1", keks[0].ID)
	keks, err = pii.ParseKEKs("2:" + key + ",1:" + key)
	require.NoError(t, err)
	assert.Equal(t, []string{"2", "1"}, []string{keks[0].ID, keks[1].ID})

	// One key in 64 made by head -c 32 /dev/urandom | base64 begins with a slash: a key, not a
	// file's path.
	slashed := base64.StdEncoding.EncodeToString(append([]byte{0xfc}, []byte(strings.Repeat("k", 31))...))
	require.True(t, strings.HasPrefix(slashed, "/"), slashed)
	keks, err = pii.ParseKEKs(slashed)
	require.NoError(t, err)
	require.Len(t, keks, 1)

	file := filepath.Join(t.TempDir(), "pii-key")
	require.NoError(t, os.WriteFile(file, []byte(key+"\n"), 0o600))
	keks, err = pii.ParseKEKs(file)
	require.NoError(t, err)
	require.Len(t, keks, 1)

	short := base64.StdEncoding.EncodeToString([]byte("short"))
	for _, bad := range []string{"", "not base64!", short, "1:" + key + ",1:" + key, key + "," + key, "/no/such/file"} {
		_, err := pii.ParseKEKs(bad)
		require.Error(t, err, bad)
		assert.NotContains(t, err.Error(), key)
		assert.Contains(t, err.Error(), "PII_KEY")
	}
}
