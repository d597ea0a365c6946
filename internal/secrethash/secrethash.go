// Package secrethash keeps secrets that are checked but never read back (a kiosk terminal's
// password, a member's PIN) as argon2id hashes in the PHC string format:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
//
// Hash makes one with a fresh random salt and the Params given; Verify checks a secret against
// one in constant time, with the parameters the hash itself names, so that raising Default later
// leaves every hash already stored working. A hash that does not parse is an error, never a
// match. The package holds no state and logs nothing: a secret goes in, a bool comes out.
package secrethash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's costs: passes over Memory KiB, in Threads lanes.
type Params struct {
	Time    uint32
	Memory  uint32 // KiB
	Threads uint8
}

// Default is OWASP's argon2id floor (19 MiB, 2 passes, 1 lane): a few tens of milliseconds of
// one core, paid once per login or PIN check.
var Default = Params{Time: 2, Memory: 19 * 1024, Threads: 1}

const (
	saltLength = 16
	keyLength  = 32
	// maxMemory bounds what a stored hash may ask for (1 GiB), so that a corrupted or hostile
	// hash can't make Verify allocate without limit.
	maxMemory = 1 << 20
	maxTime   = 64
)

// ErrMalformed is a stored hash that is not an argon2id PHC string this package can check.
var ErrMalformed = errors.New("secrethash: not an argon2id hash")

var b64 = base64.RawStdEncoding

// Hash returns the PHC string of secret under p, with a fresh random salt.
func Hash(secret string, p Params) (string, error) {
	salt := make([]byte, saltLength)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("secrethash: salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, keyLength)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether secret is the one hashed into encoded. A malformed hash is
// ErrMalformed.
func Verify(secret, encoded string) (bool, error) {
	p, salt, key, err := parse(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// parse reads a PHC string: "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash.
func parse(encoded string) (Params, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return Params{}, nil, nil, ErrMalformed
	}
	var p Params
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil || n != 3 ||
		p.Memory == 0 || p.Memory > maxMemory || p.Time == 0 || p.Time > maxTime || p.Threads == 0 {
		return Params{}, nil, nil, ErrMalformed
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return Params{}, nil, nil, ErrMalformed
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return Params{}, nil, nil, ErrMalformed
	}
	return p, salt, key, nil
}
