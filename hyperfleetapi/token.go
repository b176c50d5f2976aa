package hyperfleetapi

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// maxTokenBytes bounds the token file: a path to a device or a FIFO, or a
// file that grows, fails instead of reading without end.
const maxTokenBytes = 64 << 10

// tokenFile reads a bearer token from a file and reads it again whenever the
// file's modification time or size changes, so a rotated token is picked up
// without a restart. With a ttl, a token is used for ttl after the file was
// last looked at before the file is looked at again (the anchor's
// token_cache_ttl); zero looks at it on every request. The token never
// appears in errors or logs.
type tokenFile struct {
	path string
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	mtime   time.Time
	size    int64
	token   string
	checked time.Time
}

func (t *tokenFile) read() (string, error) {
	now := t.clock()
	t.mu.Lock()
	if t.token != "" && t.ttl > 0 && now.Sub(t.checked) < t.ttl {
		defer t.mu.Unlock()
		return t.token, nil
	}
	t.mu.Unlock()
	st, err := os.Stat(t.path)
	if err != nil {
		return "", fmt.Errorf("API token file %s: %w", t.path, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.checked = now
	if t.token != "" && st.ModTime().Equal(t.mtime) && st.Size() == t.size {
		return t.token, nil
	}
	b, err := boundedfile.Read(t.path, maxTokenBytes)
	if err != nil {
		return "", fmt.Errorf("API token file %s: %w", t.path, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("API token file %s is empty", t.path)
	}
	t.token, t.mtime, t.size = tok, st.ModTime(), st.Size()
	return tok, nil
}

func (t *tokenFile) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}
