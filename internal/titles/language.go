package titles

import (
	"strings"

	"golang.org/x/text/language"

	"library/internal/errs"
)

// Language returns the code of a title's language as the catalogue keeps it, or an
// errs.InvalidRequest naming field. It takes an ISO 639 code that the registry of language
// subtags (IANA's, as golang.org/x/text knows it) has: two letters (ISO 639-1, "en"), or three
// (ISO 639-2 or 639-3, "eng", "haw"; the bibliographic 639-2/B codes such as "fre" as their
// terminology twins, "fra"), in either case. It keeps the shortest code of the language, in
// small letters, so that one language is written one way: "ENG", "eng" and "en" are all "en",
// "fre" is "fr". Special codes such as "mul" (several languages) and "zxx" (no linguistic
// content) are codes too; regions and scripts ("en-GB") are not a title's language.
func Language(field, code string) (string, error) {
	if len(code) < 2 || len(code) > 3 || strings.IndexFunc(code, notASCIILetter) >= 0 {
		return "", errs.E(errs.InvalidRequest, "%s must be an ISO 639 language code: 2 or 3 letters, such as en or eng", field)
	}
	base, err := language.ParseBase(terminologic(strings.ToLower(code)))
	if err != nil {
		return "", errs.E(errs.InvalidRequest, "%s must be an ISO 639 language code, and is none that ISO 639 lists", field)
	}
	return base.String(), nil
}

func notASCIILetter(r rune) bool { return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') }

// terminologic is the ISO 639-2/T code of a language whose 639-2/B (bibliographic) code is
// another, as MARC records write them; any other code as it is.
func terminologic(code string) string {
	switch code {
	case "alb":
		return "sqi"
	case "arm":
		return "hye"
	case "baq":
		return "eus"
	case "bur":
		return "mya"
	case "chi":
		return "zho"
	case "cze":
		return "ces"
	case "dut":
		return "nld"
	case "fre":
		return "fra"
	case "geo":
		return "kat"
	case "ger":
		return "deu"
	case "gre":
		return "ell"
	case "ice":
		return "isl"
	case "mac":
		return "mkd"
	case "mao":
		return "mri"
	case "may":
		return "msa"
	case "per":
		return "fas"
	case "rum":
		return "ron"
	case "slo":
		return "slk"
	case "tib":
		return "bod"
	case "wel":
		return "cym"
	}
	return code
}
