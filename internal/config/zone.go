package config

import (
	"fmt"
	"time"
	_ "time/tzdata" // every IANA zone, whatever the machine the service runs on has
)

// zone reads an IANA time zone's name (Europe/Paris, UTC). Local is refused: the library's
// days must not move with the machine the service happens to run on.
func zone(name, value string) (*time.Location, error) {
	if value == "" || value == "Local" {
		return nil, fmt.Errorf("%s must be an IANA time zone name such as UTC or Europe/Paris", name)
	}
	loc, err := time.LoadLocation(value)
	if err != nil {
		return nil, fmt.Errorf("%s must be an IANA time zone name such as UTC or Europe/Paris; %q is none", name, value)
	}
	return loc, nil
}
