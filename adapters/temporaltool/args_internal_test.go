package temporaltool

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"

	"github.com/agenttool/agenttool"
)

// FuzzArgumentsSurviveTheHistory checks that any arguments, JSON or not,
// UTF-8 or not, come out of the SDK's data converter, which encodes every
// activity input into the history, byte for byte.
func FuzzArgumentsSurviveTheHistory(f *testing.F) {
	for _, seed := range []string{`{"seconds":5}`, `{"seconds":`, "", "null", `"a string"`, "{\"k\":\"\xff\"}", "\x00\u2028"} {
		f.Add([]byte(seed))
	}
	dc := converter.GetDefaultDataConverter()
	f.Fuzz(func(t *testing.T, args []byte) {
		p, err := dc.ToPayload(inputOf(agenttool.ToolCall{ID: "1", Name: "tool", Args: args}))
		require.NoError(t, err)
		var in callInput
		require.NoError(t, dc.FromPayload(p, &in))
		assert.Equal(t, "tool", in.Tool)
		if len(args) == 0 {
			assert.Empty(t, in.args())
			return
		}
		assert.Equal(t, args, []byte(in.args()))
	})
}
