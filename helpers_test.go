package agenttool_test

import (
	"strconv"
	"unicode/utf8"
)

func itoa(n int) string { return strconv.Itoa(n) }

func utf8Valid(s string) bool { return utf8.ValidString(s) }
