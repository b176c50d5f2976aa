// Package boundedfile reads the small files the adapter is pointed at
// (configs, manifest refs, TLS material, tokens) without trusting what the
// path names: only a regular file is read, never more than a limit, and
// never by blocking on a FIFO or a device.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
	"time"
)

// ErrTooLarge marks a file over the limit (errors.Is).
var ErrTooLarge = errors.New("larger than the limit")

// ReadDeadline bounds how long Read waits for a file's bytes. The files
// read here are small and local: a read that takes longer is a file that
// blocks (/proc/kmsg, a FUSE or a hung network mount), not a slow disk.
const ReadDeadline = 2 * time.Second

// Read reads a regular file of at most limit bytes. It checks the path
// with os.Stat (symlinks are followed: mounted ConfigMaps and Secrets are
// symlinks), opens it without blocking (a FIFO swapped in after the check
// does not hang the open), checks the opened file again, and reads through
// an io.LimitReader, so a file that grows after the check is still bounded.
// The read must finish within ReadDeadline: a regular file whose read
// blocks (/proc/kmsg is pollable, so O_NONBLOCK alone parks the read in
// Go's poller) fails with a "read did not finish" error instead of hanging
// the caller. Errors do not name the path (a *fs.PathError is unwrapped):
// callers add it.
func Read(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readWithin(f, limit, ReadDeadline)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file is %w of %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// openRegular opens path for reading when it is a regular file of at most
// limit bytes, checked before and after the open (which does not block).
func openRegular(path string, limit int64) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, unwrap(err)
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrap(err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, unwrap(err)
	}
	if err := checkRegular(fi, limit); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readWithin reads at most limit+1 bytes of f within d. A pollable file
// gets a read deadline (its read returns when it passes); any other read is
// waited for in a goroutine that is abandoned when d passes (its read ends
// when the kernel returns; f is closed by the caller's defer, and by then
// nothing else refers to it).
func readWithin(f *os.File, limit int64, d time.Duration) ([]byte, error) {
	_ = f.SetReadDeadline(time.Now().Add(d)) // os.ErrNoDeadline: not pollable
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		done <- result{data, err}
	}()
	timer := time.NewTimer(d + d/2)
	defer timer.Stop()
	select {
	case r := <-done:
		if errors.Is(r.err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("read did not finish within %v (a file whose read blocks)", d)
		}
		if r.err != nil {
			return nil, unwrap(r.err)
		}
		return r.data, nil
	case <-timer.C:
		return nil, fmt.Errorf("read did not finish within %v (a file whose read blocks)", d)
	}
}

// ReadPrefix reads at most the first n bytes of a regular file of any
// size, with Read's checks and read deadline: for a caller that refuses
// what is longer itself (a file of n bytes may have been cut).
func ReadPrefix(path string, n int64) ([]byte, error) {
	f, err := openRegular(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readWithin(f, n-1, ReadDeadline)
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Check reports nil when path is a regular file of at most limit bytes,
// without reading it. Errors do not name the path.
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return unwrap(err)
	}
	return checkRegular(fi, limit)
}

func checkRegular(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", describeMode(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("file of %d bytes is %w of %d bytes", fi.Size(), ErrTooLarge, limit)
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.String()
	}
}
