package agenttool

// chunkSize is the number of blocks in each chunk of a blockStore.
const chunkSize = 64

// blockStore holds a turn's blocks in chunks of at most chunkSize, so that
// adding a block never copies more than one chunk: the cost of a call does
// not grow with the number of blocks the turn already holds.
type blockStore struct {
	chunks [][]ToolBlock
	n      int
}

func (s *blockStore) len() int { return s.n }

func (s *blockStore) add(b ToolBlock) {
	if s.n%chunkSize == 0 {
		// The first chunk grows as a slice does, so that a short turn
		// holds little; a turn that fills it gets whole chunks at once,
		// without the copies of growing them.
		var chunk []ToolBlock
		if s.n > 0 {
			chunk = make([]ToolBlock, 0, chunkSize)
		}
		s.chunks = append(s.chunks, chunk)
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, b)
	s.n++
}

func (s *blockStore) at(i int) *ToolBlock { return &s.chunks[i/chunkSize][i%chunkSize] }

// clone deep-copies blocks [from, to) with two allocations: the blocks and
// one buffer shared by all their arguments.
func (s *blockStore) clone(from, to int) []ToolBlock {
	out := make([]ToolBlock, 0, to-from)
	for c := from / chunkSize; c < len(s.chunks) && c*chunkSize < to; c++ {
		lo, hi := max(from-c*chunkSize, 0), min(to-c*chunkSize, len(s.chunks[c]))
		out = append(out, s.chunks[c][lo:hi]...)
	}
	return detachArgs(out)
}

// detachArgs gives the blocks' arguments a buffer of their own, so that a
// copy handed out shares no bytes with the turn.
func detachArgs(blocks []ToolBlock) []ToolBlock {
	size := 0
	for i := range blocks {
		size += len(blocks[i].Call.Args)
	}
	if size == 0 {
		return blocks
	}
	buf := make([]byte, 0, size)
	for i := range blocks {
		if args := blocks[i].Call.Args; len(args) > 0 {
			start := len(buf)
			buf = append(buf, args...)
			blocks[i].Call.Args = buf[start:len(buf):len(buf)]
		}
	}
	return blocks
}
