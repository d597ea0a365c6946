package devidp

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// User is a person who can sign in, and also a confidential client whose id is Username and
// whose secret is Password (for the client_credentials grant).
type User struct {
	// ID is the token's sub: an opaque, stable id such as "alice".
	ID string `json:"id"`
	// Username is what the person types on the sign-in page, and the client id.
	Username string `json:"username"`
	// Password is kept in plain text: this provider is for demos and tests only.
	Password      string   `json:"password"`
	Name          string   `json:"name"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
	Roles         []string `json:"roles"`
}

// usersFile is the JSON form LoadUsers reads.
type usersFile struct {
	Users []User `json:"users"`
}

// DefaultUsers returns three users, one of each kind the library knows: a member (alice, no
// roles), a librarian (libby) and an operator (oscar). Each one's password is its username
// followed by "-password".
func DefaultUsers() []User {
	return []User{
		{ID: "alice", Username: "alice", Password: "alice-password", Name: "Alice Member",
			Email: "alice@example.org", EmailVerified: true, Roles: []string{}},
		{ID: "libby", Username: "libby", Password: "libby-password", Name: "Libby Librarian",
			Email: "libby@example.org", EmailVerified: true, Roles: []string{"librarian"}},
		{ID: "oscar", Username: "oscar", Password: "oscar-password", Name: "Oscar Operator",
			Email: "oscar@example.org", EmailVerified: true, Roles: []string{"operator"}},
	}
}

// LoadUsers reads users from a JSON file of the form {"users":[{"id":..., "username":...,
// "password":..., "name":..., "email":..., "email_verified":..., "roles":[...]}]}. Unknown
// fields are refused, so a misspelt one is not silently ignored.
func LoadUsers(path string) ([]User, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("devidp: read users: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f usersFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("devidp: users file %s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("devidp: users file %s: more than one JSON value", path)
	}
	if err := validateUsers(f.Users, ""); err != nil {
		return nil, fmt.Errorf("devidp: users file %s: %w", path, err)
	}
	return f.Users, nil
}

// validateUsers checks that every user can sign in and is told apart from the others and from
// the web client.
func validateUsers(users []User, webClientID string) error {
	if len(users) == 0 {
		return errors.New("no users")
	}
	ids := map[string]bool{}
	names := map[string]bool{}
	for i, u := range users {
		switch {
		case u.ID == "" || u.Username == "" || u.Password == "":
			return fmt.Errorf("user %d: id, username and password are required", i)
		case ids[u.ID]:
			return fmt.Errorf("user %d: id %q is used twice", i, u.ID)
		case names[u.Username]:
			return fmt.Errorf("user %d: username %q is used twice", i, u.Username)
		case u.Username == webClientID:
			return fmt.Errorf("user %d: username %q is the web client's id", i, u.Username)
		}
		ids[u.ID], names[u.Username] = true, true
	}
	return nil
}

// directory holds the users, found by id or by username. It is not changed after New.
type directory struct {
	byID       map[string]User
	byUsername map[string]User
}

func newDirectory(users []User) directory {
	d := directory{byID: map[string]User{}, byUsername: map[string]User{}}
	for _, u := range users {
		u.Roles = slices.Clone(u.Roles)
		if u.Roles == nil {
			u.Roles = []string{}
		}
		d.byID[u.ID], d.byUsername[u.Username] = u, u
	}
	return d
}

// authenticate returns the user whose username and password these are. The password is
// compared in constant time; an unknown username and a wrong password give the same error.
func (d directory) authenticate(username, password string) (User, error) {
	u, ok := d.byUsername[username]
	if !ok || subtle.ConstantTimeCompare([]byte(u.Password), []byte(password)) != 1 {
		return User{}, errors.New("wrong username or password")
	}
	return u, nil
}

// claims returns the private claims that access tokens carry for u.
func (u User) claims() map[string]any {
	return map[string]any{
		"roles":              slices.Clone(u.Roles),
		"email":              u.Email,
		"email_verified":     u.EmailVerified,
		"name":               u.Name,
		"preferred_username": u.Username,
	}
}
