package config

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileBytes bounds every file the adapter loads as configuration: the
// adapter, task and broker configs and every manifest or build ref. A
// larger file, or anything that is not a regular file (a device such as
// /dev/zero, a FIFO, a directory), is refused before it is read.
const MaxFileBytes = 1 << 20

// readFileBounded reads a regular file of at most limit bytes. It checks the
// path with os.Stat (symlinks are followed: mounted ConfigMaps are
// symlinks), opens it without blocking (a FIFO swapped in after the check
// does not hang the open), checks the opened file again, and reads through
// an io.LimitReader, so a file that grows after the check is still bounded.
// Errors do not name the path: callers add it.
func readFileBounded(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, unwrapPathErr(err)
	}
	if err := checkRegular(fi, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, unwrapPathErr(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file is larger than the limit of %d bytes (config.MaxFileBytes)", limit)
	}
	return data, nil
}

func checkRegular(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", describeMode(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("file of %d bytes is larger than the limit of %d bytes (config.MaxFileBytes)", fi.Size(), limit)
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
