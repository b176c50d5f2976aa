package main

import (
	"bufio"
	"encoding/json"
	"os"
	"sync"
)

// recorder appends JSON lines to one history file; safe for concurrent use.
type recorder struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

func newRecorder(path string) (*recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &recorder{f: f, w: bufio.NewWriterSize(f, 256*1024)}, nil
}

// add writes v as one line; an encoding error drops the line (every value
// recorded here encodes).
func (r *recorder) add(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}

func (r *recorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.Flush(); err != nil {
		return err
	}
	return r.f.Close()
}
