// Package sleeparg reads the arguments of the sleep tool, so that the tool,
// the MCP server's progress reports and the command's progress bar agree on
// what a valid call is.
package sleeparg

import (
	"errors"

	"github.com/agenttool/agenttool/internal/jsonarg"
)

// Max is the longest sleep in seconds (agenttool.MaxSleepSeconds).
const Max = 86400

const secondsRange = "an integer from 0 to 86400"

// Seconds returns the seconds that sleep arguments ask for, or, when they
// are not valid, a problem in words the model can act on, naming "seconds"
// and the allowed range.
func Seconds(args []byte) (int, string) {
	raw, found, err := jsonarg.Member(args, "seconds")
	switch {
	case errors.Is(err, jsonarg.ErrNotJSON):
		return 0, `arguments are not valid JSON; send an object like {"seconds": 5}, where "seconds" is ` + secondsRange
	case err != nil:
		return 0, `arguments must be a JSON object like {"seconds": 5}, where "seconds" is ` + secondsRange
	case !found || jsonarg.IsNull(raw):
		return 0, `"seconds" is required: ` + secondsRange
	}
	if n, ok := plainSeconds(raw); ok {
		return n, ""
	}
	return 0, `"seconds" must be ` + secondsRange + ", got " + jsonarg.Excerpt(string(raw))
}

// plainSeconds accepts only the lexemes 0 and [1-9][0-9]* up to the cap, so
// that 1.0, 1e3 and -0 are refused even though they denote integers.
func plainSeconds(raw []byte) (int, bool) {
	if len(raw) == 0 || len(raw) > len("86400") || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= Max
}
