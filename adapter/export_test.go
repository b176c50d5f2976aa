package adapter

import (
	"github.com/bundle-adapter/bundle-adapter/task"
)

// MemoLen is how many fingerprints the pipeline's memo holds, for the
// external tests.
func (p *Pipeline) MemoLen() int { return p.memo.Len() }

// MemoKeyed reports whether res has memo keys (its manifest reads only
// paths of its data), for the external tests.
func (p *Pipeline) MemoKeyed(res *task.Resource) bool {
	_, ok := p.memoReads[res]
	return ok
}
