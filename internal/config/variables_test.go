package config

import (
	"reflect"
	"testing"
)

// Every default reads, so that an empty environment configures the service (Defaults).
func TestDefaultsRead(t *testing.T) {
	t.Parallel()
	for _, v := range Variables {
		if err := v.field.read(&Config{}, v.Name, v.Default); err != nil {
			t.Errorf("%s's default %q: %v", v.Name, v.Default, err)
		}
	}
}

// A Config made in code takes, for each field that it leaves zero and that has a default, the
// default an empty environment gives: the two ways to make a Config differ only where zero
// means what it says (0: no limit, false: off).
func TestCompleteTakesTheDefaults(t *testing.T) {
	t.Parallel()
	got, err := Config{}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variables {
		if v.field.zero == nil {
			if err := v.field.read(&got, v.Name, v.Default); err != nil {
				t.Fatal(err)
			}
		} else if v.field.zero(&got) {
			t.Errorf("%s: Complete leaves its field zero", v.Name)
		}
	}
	want := Defaults()
	got.Tuning.Now, want.Tuning.Now = nil, nil // funcs never compare equal
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Config{}.Complete(), with the fields whose zero stands at their defaults:\n  %+v\nthe defaults:\n  %+v", got, want)
	}
}
