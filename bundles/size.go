package bundles

import "fmt"

// MaxBundleBytes is the ManifestWork size limit: a bundle whose JSON encoding
// is larger is refused.
const MaxBundleBytes = 500 * 1024

// CheckSize returns an error naming the bundle and its size when the JSON
// encoding of work exceeds MaxBundleBytes. The size is that of the compact
// encoding/json output (HTML characters escaped), which is what goes over
// the wire.
func CheckSize(name string, work map[string]any) error {
	e := canonGet(true)
	defer canonPut(e)
	if err := e.object(work); err != nil {
		return fmt.Errorf("bundle %q: %w", name, err)
	}
	if n := len(e.buf); n > MaxBundleBytes {
		return fmt.Errorf("bundle %q is %d bytes as JSON, over the ManifestWork limit of %d bytes", name, n, MaxBundleBytes)
	}
	return nil
}
