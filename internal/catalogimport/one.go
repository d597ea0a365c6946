package catalogimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/titles"
)

// one records a record that meets something already in the log, through the titles' and the
// books' commands: its title is added, or found (by control number, then by ISBN) and changed
// to what the record says; then each copy it does not have yet is added.
func (im *Importer) one(ctx context.Context, f *fitted, o *Outcome) error {
	t, found, err := im.find(ctx, f)
	if err != nil {
		return err
	}
	o.TitleID = f.title.ID
	switch {
	case !found:
		added, err := im.add(ctx, f)
		if err != nil || !added {
			o.Outcome, o.Reason, o.Message = Refused, ReasonTitleTaken, "its ISBN was recorded for another title meanwhile"
			return err
		}
		o.Outcome = Recorded
	default:
		changed, err := im.change(ctx, f, t)
		if err != nil {
			return err
		}
		o.Outcome = Unchanged
		if changed {
			o.Outcome = Changed
		}
	}
	added, err := im.addCopies(ctx, f, t)
	if err != nil {
		return err
	}
	o.Copies = added
	if added > 0 && o.Outcome == Unchanged {
		o.Outcome = Changed
	}
	return nil
}

// find finds the record's title: by its id, made from the control number, then as the title
// that holds its ISBN, when that title was not itself imported under another control number
// (two records are never made one title on a guess: the record's ISBN is then left out). It
// sets f's title id to the title found.
func (im *Importer) find(ctx context.Context, f *fitted) (titles.Title, bool, error) {
	t, _, err := im.Titles.Get(ctx, f.title.ID)
	if err == nil {
		if f.title.ISBN != nil && *f.title.ISBN != t.ISBN {
			im.dropTakenISBN(ctx, f)
		}
		return t, true, nil
	}
	if !errs.Is(err, errs.NotFound) || f.title.ISBN == nil {
		return titles.Title{}, false, ignoreNotFound(err)
	}
	holder, err := im.Titles.WithISBN(ctx, *f.title.ISBN)
	if err != nil || holder == "" {
		return titles.Title{}, false, err
	}
	if imported(holder) {
		im.dropISBN(f, holder)
		return titles.Title{}, false, nil
	}
	t, _, err = im.Titles.Get(ctx, holder)
	if err != nil {
		return titles.Title{}, false, err
	}
	f.title.ID = holder
	for i := range f.copies {
		f.copies[i].TitleID = holder
	}
	return t, true, nil
}

// dropTakenISBN leaves out the ISBN of a record whose title is found by control number, when
// another title holds it.
func (im *Importer) dropTakenISBN(ctx context.Context, f *fitted) {
	if f.title.ISBN == nil {
		return
	}
	if holder, err := im.Titles.WithISBN(ctx, *f.title.ISBN); err == nil && holder != "" && holder != f.title.ID {
		im.dropISBN(f, holder)
	}
}

func (im *Importer) dropISBN(f *fitted, holder string) {
	f.warn(Warning{Reason: WarningDropped, Field: titles.FieldISBN, Message: "ISBN " + *f.title.ISBN + " is title " + holder + "'s"})
	f.title.ISBN = nil
}

// imported reports whether a title id is one an import made (TitleID).
func imported(titleID string) bool { return strings.HasPrefix(titleID, "m:") }

// add adds the record's title; false when its ISBN was taken meanwhile.
func (im *Importer) add(ctx context.Context, f *fitted) (bool, error) {
	if im.DryRun {
		return true, nil
	}
	_, err := im.Titles.Add(ctx, f.title, im.origin("import:"+f.title.ID))
	if errs.Is(err, errs.TitleAlreadyExists) {
		return false, nil
	}
	return err == nil, err
}

// change changes the title found to what the record says, and reports whether that changed
// anything. The change's command id is made from what it asks, so an import started again
// finds it done.
func (im *Importer) change(ctx context.Context, f *fitted, t titles.Title) (bool, error) {
	c, decided, err := im.decideChange(f, t)
	if err != nil || len(decided) == 0 || im.DryRun {
		return len(decided) > 0, err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(payload)
	res, err := im.Titles.Change(ctx, f.title.ID, c, im.origin("import:"+f.title.ID+":"+hex.EncodeToString(sum[:8])))
	return len(res.Events) > 0 || res.Replayed, err
}

// decideChange is the change that makes t the record's title, and what the title decides of
// it: no events when t is that already.
func (im *Importer) decideChange(f *fitted, t titles.Title) (titles.ChangeTitle, []titles.Event, error) {
	c := changeTo(f.title, t)
	checked, err := c.Checked(im.now())
	if err != nil {
		return c, nil, err
	}
	decided, err := checked.Decide(t)
	return c, decided, err
}

// changeTo is the change that makes t the title a: every field a has, set, and every optional
// field it has not, removed.
func changeTo(a titles.AddTitle, t titles.Title) titles.ChangeTitle {
	c := titles.ChangeTitle{Title: &a.Title, Authors: a.Authors, ISBN: a.ISBN, Year: a.Year, Publisher: a.Publisher, Language: a.Language, Subjects: a.Subjects}
	remove := map[string]bool{
		titles.FieldISBN: a.ISBN == nil && t.ISBN != "", titles.FieldYear: a.Year == nil && t.Year != 0,
		titles.FieldPublisher: a.Publisher == nil && t.Publisher != "", titles.FieldLanguage: a.Language == nil && t.Language != "",
		titles.FieldSubjects: len(a.Subjects) == 0 && len(t.Subjects) > 0,
	}
	for _, field := range titles.Optional() {
		if remove[field] {
			c.Remove = append(c.Remove, field)
		}
	}
	if len(a.Subjects) == 0 {
		c.Subjects = nil
	}
	return c
}

// addCopies adds the copies the title t (as it was found; zero for a new one) does not list yet,
// and counts them. A copy whose barcode is another copy's, or whose id another title's copy
// has, is a warning.
func (im *Importer) addCopies(ctx context.Context, f *fitted, t titles.Title) (int, error) {
	added := 0
	for _, c := range f.copies {
		if t.HasCopy(c.ID) {
			continue
		}
		if im.DryRun {
			fresh, err := im.dryCopy(ctx, f, c)
			if err != nil {
				return added, err
			}
			if fresh {
				added++
			}
			continue
		}
		res, err := im.Books.AddCopy(ctx, c, im.origin("import:"+c.ID))
		switch {
		case err == nil && !res.Replayed:
			added++
		case err == nil:
		case errs.Is(err, errs.BookAlreadyExists):
			if err := im.sameTitle(ctx, f, c); err != nil {
				return added, err
			}
		case errs.Is(err, errs.BarcodeTaken):
			f.warn(Warning{Reason: ReasonBarcodeTaken, Barcode: c.Barcode, Message: detail(err)})
		default:
			return added, err
		}
	}
	return added, nil
}

// dryCopy says what adding a copy would do, without adding it: whether it would be added, or
// the warning the command's refusal would bring (its barcode another copy's, or the copy
// another title's).
func (im *Importer) dryCopy(ctx context.Context, f *fitted, c books.AddCopy) (bool, error) {
	_, _, err := im.Books.Get(ctx, c.ID)
	switch {
	case err == nil:
		return false, im.sameTitle(ctx, f, c)
	case !errs.Is(err, errs.NotFound):
		return false, err
	}
	holder, _, err := im.Books.FindByBarcode(ctx, c.Barcode)
	switch {
	case errs.Is(err, errs.NotFound):
		return true, nil
	case err != nil:
		return false, err
	}
	f.warn(Warning{Reason: ReasonBarcodeTaken, Barcode: c.Barcode,
		Message: "barcode " + c.Barcode + " is already recorded for " + books.Type().StreamID(holder.ID)})
	return false, nil
}

// sameTitle warns when the copy that is there is another title's.
func (im *Importer) sameTitle(ctx context.Context, f *fitted, c books.AddCopy) error {
	b, _, err := im.Books.Get(ctx, c.ID)
	if err != nil {
		return err
	}
	if b.TitleID != c.TitleID {
		f.warn(Warning{Reason: ReasonCopyOfOther, Barcode: c.Barcode, Message: "the copy with this barcode is title " + b.TitleID + "'s"})
	}
	return nil
}

func ignoreNotFound(err error) error {
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}
