package paramtype

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxQuoted is the most characters of a value an error message quotes.
const MaxQuoted = 200

// Quote returns v as a Go-quoted string, cut to MaxQuoted characters with
// the number of characters left out, so an error never echoes a large
// value in full and never prints a control character raw.
func Quote(v string) string {
	n := utf8.RuneCountInString(v)
	if n <= MaxQuoted {
		return strconv.Quote(v)
	}
	i, end := 0, len(v)
	for pos := range v {
		if i == MaxQuoted {
			end = pos
			break
		}
		i++
	}
	return fmt.Sprintf("%s… (%d more characters)", strconv.Quote(v[:end]), n-MaxQuoted)
}
