package configfile

import (
	"errors"
	"fmt"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// MaxFileBytes bounds every file the adapter loads as configuration: the
// adapter, task and broker configs and every manifest or build ref. A
// larger file, or anything that is not a regular file (a device such as
// /dev/zero, a FIFO, a directory), is refused before it is read.
const MaxFileBytes = 1 << 20

// readFileBounded reads a regular file of at most limit bytes
// (boundedfile.Read); an error over the limit names config.MaxFileBytes.
// Errors do not name the path: callers add it.
func ReadFileBounded(path string, limit int64) ([]byte, error) {
	data, err := boundedfile.Read(path, limit)
	if errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("%w (config.MaxFileBytes)", err)
	}
	return data, err
}
