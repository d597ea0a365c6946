package books

import (
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/validate"
)

// MaterialTypeSet records that the copy is of MaterialType from now on, and, when set, that
// replacing it costs ReplacementPrice cents (a fine capped at the replacement price, and a
// lost copy's charge, read it). A copy never given a type is a circulation.DefaultMaterialType.
type MaterialTypeSet struct {
	MaterialType     string `json:"materialType"`
	ReplacementPrice *int64 `json:"replacementPrice,omitempty"`
}

// EventType names the event in the log; never rename it.
func (MaterialTypeSet) EventType() string { return "MaterialTypeSet" }

// Type is the copy's material type: the one set, or circulation.DefaultMaterialType.
func (b Book) Type() string { return circulation.MaterialTypeOr(b.MaterialType) }

// SetMaterialType asks that the copy be of MaterialType, and, when ReplacementPrice is set,
// cost that to replace. Its JSON is the payload's fingerprint.
type SetMaterialType struct {
	MaterialType     string `json:"materialType"`
	ReplacementPrice *int64 `json:"replacementPrice,omitempty"`
}

// Checked checks the fields and returns the command with the type as the rules key it.
func (c SetMaterialType) Checked() (SetMaterialType, error) {
	t, err := circulation.Name("materialType", c.MaterialType)
	if err != nil {
		return c, err
	}
	c.MaterialType = t
	if c.ReplacementPrice != nil {
		if err := validate.Amount("replacementPrice", *c.ReplacementPrice); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Decide records the type (and price); what the copy has already records nothing. A copy's
// type may change while it is lent: the loan keeps the terms it was made on.
func (c SetMaterialType) Decide(b Book) ([]Event, error) {
	if !b.Added {
		return nil, errs.E(errs.NotFound, "there is no such book")
	}
	samePrice := c.ReplacementPrice == nil || b.ReplacementPrice == *c.ReplacementPrice
	if b.Type() == c.MaterialType && samePrice {
		return nil, nil
	}
	return []Event{MaterialTypeSet(c)}, nil
}

// checkMaterial checks an added copy's material type and price, which are optional.
func checkMaterial(materialType string, price int64) (string, error) {
	if price != 0 {
		if err := validate.Amount("replacementPrice", price); err != nil {
			return "", err
		}
	}
	if materialType == "" {
		return "", nil
	}
	return circulation.Name("materialType", materialType)
}
