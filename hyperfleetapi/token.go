package hyperfleetapi

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenFile reads a bearer token from a file and reads it again whenever the
// file's modification time or size changes, so a rotated token is picked up
// without a restart. The token never appears in errors or logs.
type tokenFile struct {
	path string

	mu    sync.Mutex
	mtime time.Time
	size  int64
	token string
}

func (t *tokenFile) read() (string, error) {
	st, err := os.Stat(t.path)
	if err != nil {
		return "", fmt.Errorf("API token file %s: %w", t.path, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" && st.ModTime().Equal(t.mtime) && st.Size() == t.size {
		return t.token, nil
	}
	b, err := os.ReadFile(t.path)
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
