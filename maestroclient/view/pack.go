package view

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	workv1 "open-cluster-management.io/api/work/v1"
)

// An entry keeps its bundle as deflated JSON: a decoded ManifestWork from a
// read held about 4.3 KB on the heap (207 MB at 50,000 bundles, over the
// adapter's 200 MB floor by itself); packed it is a fifth of that. A hit
// unpacks it (microseconds, against a Maestro request).
//
// Deflate runs against a preset dictionary, the JSON of the first bundle
// the view packed: an adapter's bundles come from a few templates and share
// most of their text (field names, conditions, manifests, feedback rules),
// which a bundle deflated alone has to spell out again. Against it a
// bundle the real agent reported on took 424 bytes on the heap instead of
// 1,196 (BenchmarkViewMemory; 293 since the entry keeps digests, view.go). The dictionary
// never changes once set (every entry decodes against it); bundles unlike
// it only compress as they would without one.

// maxDictionary is deflate's window: a longer dictionary is cut to its end.
const maxDictionary = 32 << 10

// dictionary is the view's preset dictionary with the writers that use it.
type dictionary struct {
	raw     []byte
	writers sync.Pool // *flate.Writer at packLevel, reset to raw
}

// packLevel is the fastest level that uses a dictionary: compress/flate
// ignores it at BestSpeed (level 1).
const packLevel = 2

func newDictionary(sample []byte) *dictionary {
	d := &dictionary{raw: bytes.Clone(sample[max(0, len(sample)-maxDictionary):])}
	d.writers.New = func() any {
		w, _ := flate.NewWriterDict(nil, packLevel, d.raw)
		return w
	}
	return d
}

// dictionaryFor is the view's dictionary, set to sample when there is none.
func (v *View) dictionaryFor(sample []byte) *dictionary {
	if d := v.dict.Load(); d != nil {
		return d
	}
	v.dict.CompareAndSwap(nil, newDictionary(sample))
	return v.dict.Load()
}

// dictionaryRaw is the dictionary entries were packed against (nil before
// the first pack, when there is no entry to unpack).
func (v *View) dictionaryRaw() []byte {
	if d := v.dict.Load(); d != nil {
		return d.raw
	}
	return nil
}

var readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// pack encodes work as deflated JSON against the view's dictionary.
func (v *View) pack(work *workv1.ManifestWork) (string, error) {
	raw, err := json.Marshal(work)
	if err != nil {
		return "", err
	}
	d := v.dictionaryFor(raw)
	var b bytes.Buffer
	w := d.writers.Get().(*flate.Writer)
	defer d.writers.Put(w)
	w.Reset(&b)
	if _, err := w.Write(raw); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return b.String(), nil // a string: 8 bytes less in every entry than a slice
}

var inflated = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// inflate passes what pack deflated against dict, as JSON, to decode; the
// JSON is only valid during the call.
func inflate(dict []byte, packed string, decode func(raw []byte) error) error {
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(strings.NewReader(packed), dict); err != nil {
		return err
	}
	buf := inflated.Get().(*bytes.Buffer)
	defer inflated.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return fmt.Errorf("view: unpack: %w", err)
	}
	if err := decode(buf.Bytes()); err != nil {
		return fmt.Errorf("view: unpack: %w", err)
	}
	return nil
}

// unpack decodes what pack encoded into a new ManifestWork.
func (v *View) unpack(packed string) (*workv1.ManifestWork, error) {
	var work workv1.ManifestWork
	if err := inflate(v.dictionaryRaw(), packed, func(raw []byte) error { return json.Unmarshal(raw, &work) }); err != nil {
		return nil, err
	}
	return &work, nil
}

// unpackObject decodes what pack encoded into the unstructured object
// runtime.DefaultUnstructuredConverter.ToUnstructured makes of the
// ManifestWork unpack returns (whole numbers int64, others float64, the
// fields the type marshalled), without the typed work in between: pack's
// JSON is the typed work's own encoding, and ToUnstructured follows that
// encoding (apimachinery checks it against a JSON round trip).
func (v *View) unpackObject(packed string) (map[string]any, error) {
	var obj map[string]any
	if err := inflate(v.dictionaryRaw(), packed, func(raw []byte) (err error) { obj, err = decodeObject(raw); return err }); err != nil {
		return nil, err
	}
	return obj, nil
}
