package main

import (
	"fmt"
	"strconv"
	"strings"
)

// unescapeDelim decodes the escapes kcat accepts in its -D and -K
// delimiters, so that the same command lines work: \n, \r, \t, \0, \\ and
// \xHH (one byte). Other text is taken as it is.
func unescapeDelim(flag, s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0':
			b.WriteByte(0)
		case '\\':
			b.WriteByte('\\')
		case 'x':
			if i+3 > len(s) {
				return "", fmt.Errorf("%s %q: \\x wants two hex digits", flag, s)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("%s %q: \\x wants two hex digits", flag, s)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
