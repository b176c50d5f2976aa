package bundles

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"sync"
)

// Memo remembers the fingerprints of bundles rendered before, by a digest
// of everything the render read (MemoKeyOf), so that an event whose inputs
// did not change can compare fingerprints without rendering its bundle
// again: on HyperFleet's resent events that is most of them. It holds only
// fingerprints of renders that succeeded (the rendered tree passed every
// check); a render that failed is never remembered and fails again on the
// next event.
//
// Keys do not name the templates, only what they read (MemoKeyOf): a Memo
// serves one compiled task config, and a new config needs a new Memo (the
// adapter keeps one per pipeline).
//
// A Memo holds at most its size of entries (about 60 bytes each); when full,
// a new entry replaces an arbitrary one, which costs that bundle one render
// on its next event. It is safe for concurrent use. The zero Memo and a nil
// *Memo remember nothing.
type Memo struct {
	mu   sync.Mutex
	size int
	m    map[MemoKey][sha256.Size]byte
}

// DefaultMemoSize is NewMemo's size when given 0: room for the bundles of
// 65,536 clusters of two bundles each (about 8 MB when full).
const DefaultMemoSize = 1 << 17

// NewMemo returns a Memo of at most size entries (0: DefaultMemoSize).
func NewMemo(size int) *Memo {
	if size <= 0 {
		size = DefaultMemoSize
	}
	return &Memo{size: size, m: make(map[MemoKey][sha256.Size]byte)}
}

// Get returns the fingerprint remembered for key.
func (m *Memo) Get(key MemoKey) (string, bool) {
	if m == nil || m.m == nil {
		return "", false
	}
	m.mu.Lock()
	fp, ok := m.m[key]
	m.mu.Unlock()
	if !ok {
		return "", false
	}
	return hex.EncodeToString(fp[:]), true
}

// Put remembers fingerprint (as Fingerprint returns it) for key; anything
// else is not remembered.
func (m *Memo) Put(key MemoKey, fingerprint string) {
	if m == nil || m.m == nil || !IsFingerprint(fingerprint) {
		return
	}
	var fp [sha256.Size]byte
	if _, err := hex.Decode(fp[:], []byte(fingerprint)); err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[key]; !ok && len(m.m) >= m.size {
		for k := range m.m {
			delete(m.m, k)
			break
		}
	}
	m.m[key] = fp
}

// Len is how many fingerprints m holds.
func (m *Memo) Len() int {
	if m == nil || m.m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

// memoMaxNodes and memoMaxBytes bound the values MemoKeyOf hashes (nodes,
// and bytes of strings): past either there is no key (the bundle is
// rendered), so a huge or deep API response costs a bounded walk.
const (
	memoMaxNodes = 4096
	memoMaxBytes = 256 << 10
)

// MemoKey is a memo key: the first 128 bits of a SHA-256 (MemoKeyOf), as
// unlikely to collide by chance as the fingerprint itself is, at a quarter
// less memory per entry than the whole digest.
type MemoKey [16]byte

// MemoKeyOf is the digest of a render's inputs: id (what is rendered: the
// resource, its bundle name and consumer; the caller's strings, each
// hashed whole) and, for every path of paths (task.Manifest.Reads), how
// far the path reaches in data and the value there, with its exact Go
// type (int64 1, float64 1 and "1" differ, as they may in a template's
// output). A path that meets something other than a map[string]any stops
// there, and that value is hashed whole; a missing key is hashed as such.
// ok is false when a value is of a type outside JSON's values (string,
// bool, nil, Go's number types, json.Number, maps and slices of them) or
// the values hold more than memoMaxNodes values or memoMaxBytes bytes of
// strings: such a render has no key.
//
// Two renders of one compiled manifest whose keys are equal read the same
// values, so they render the same tree: that is Memo's contract, and it
// holds only for a manifest whose Reads reported ok.
func MemoKeyOf(id []string, paths [][]string, data map[string]any) (key MemoKey, ok bool) {
	w := memoWriterPool.Get().(*memoWriter)
	defer w.release()
	w.uint(uint64(len(id)))
	for _, s := range id {
		w.str(s)
	}
	w.uint(uint64(len(paths)))
	for _, p := range paths {
		w.uint(uint64(len(p)))
		for _, k := range p {
			w.str(k)
		}
		v, depth, found := walkPath(data, p)
		w.uint(uint64(depth))
		if !found {
			w.tag('x')
			continue
		}
		if !w.value(v) {
			return key, false
		}
	}
	if !w.spend(0, 0) {
		return key, false
	}
	sum := sha256.Sum256(w.buf)
	return MemoKey(sum[:len(key)]), true
}

// walkPath follows p through nested map[string]any from data: the value it
// reached, how many keys it followed, and false when the next key was
// missing from a map.
func walkPath(data map[string]any, p []string) (v any, depth int, found bool) {
	v = data
	for i, k := range p {
		m, isMap := v.(map[string]any)
		if !isMap {
			return v, i, true
		}
		next, ok := m[k]
		if !ok {
			return nil, i, false
		}
		v = next
	}
	return v, len(p), true
}

// memoWriter writes the encoding MemoKeyOf hashes: each value with a type
// tag, strings and counts length-prefixed, so no two inputs write the same
// bytes.
type memoWriter struct {
	buf   []byte
	nodes int // values written
	bytes int // string bytes written
}

var memoWriterPool = sync.Pool{New: func() any { return &memoWriter{buf: make([]byte, 0, 1024)} }}

// release returns w to the pool unless a large input grew it.
func (w *memoWriter) release() {
	if cap(w.buf) > 64<<10 {
		return
	}
	w.buf, w.nodes, w.bytes = w.buf[:0], 0, 0
	memoWriterPool.Put(w)
}

// spend counts n more nodes and b more bytes; false once past a bound.
func (w *memoWriter) spend(n, b int) bool {
	w.nodes += n
	w.bytes += b
	return w.nodes <= memoMaxNodes && w.bytes <= memoMaxBytes
}

func (w *memoWriter) tag(t byte) { w.buf = append(w.buf, t) }

func (w *memoWriter) uint(u uint64) { w.buf = binary.AppendUvarint(w.buf, u) }

func (w *memoWriter) unsigned(t byte, u uint64) {
	w.buf = binary.AppendUvarint(append(w.buf, t), u)
}

func (w *memoWriter) int(t byte, i int64) {
	w.buf = binary.AppendVarint(append(w.buf, t), i)
}

func (w *memoWriter) str(s string) {
	w.bytes += len(s)
	if w.bytes > memoMaxBytes {
		return // no key (spend reports it): a huge string is not copied
	}
	w.uint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// value hashes v with its type; false for a type it does not know, or past
// memoMaxNodes.
func (w *memoWriter) value(v any) bool {
	if !w.spend(1, 0) {
		return false
	}
	var ok bool
	switch x := v.(type) {
	case map[string]any:
		ok = w.mapAny(x)
	case map[string]string:
		ok = w.mapString(x)
	case []any:
		ok = w.listAny(x)
	case []string:
		ok = w.listString(x)
	default:
		ok = w.scalar(v)
	}
	return ok && w.spend(0, 0)
}

// scalar hashes a nil, bool, string, json.Number or Go number with its
// type; false for any other type.
func (w *memoWriter) scalar(v any) bool {
	switch x := v.(type) {
	case nil:
		w.tag('n')
	case bool:
		w.tag('b')
		if x {
			w.tag(1)
		} else {
			w.tag(0)
		}
	case string:
		w.tag('s')
		w.str(x)
	case json.Number:
		w.tag('N')
		w.str(string(x))
	default:
		return w.number(v)
	}
	return true
}

// number hashes one of Go's integer or float types, each with its own tag
// (floats by their bits); false for any other type.
func (w *memoWriter) number(v any) bool {
	switch x := v.(type) {
	case int:
		w.int('i', int64(x))
	case int8:
		w.int('1', int64(x))
	case int16:
		w.int('2', int64(x))
	case int32:
		w.int('4', int64(x))
	case int64:
		w.int('8', x)
	case uint:
		w.unsigned('u', uint64(x))
	case uint8:
		w.unsigned('U', uint64(x))
	case uint16:
		w.unsigned('W', uint64(x))
	case uint32:
		w.unsigned('D', uint64(x))
	case uint64:
		w.unsigned('Q', x)
	case float32:
		w.unsigned('g', uint64(math.Float32bits(x)))
	case float64:
		w.unsigned('f', math.Float64bits(x))
	default:
		return false
	}
	return true
}

// mapAny hashes x's entries in key order; false when its entries would
// pass memoMaxNodes (checked before sorting the keys) or a value cannot be
// hashed.
func (w *memoWriter) mapAny(x map[string]any) bool {
	if w.nodes+len(x) > memoMaxNodes { // before sorting the keys
		return false
	}
	w.tag('m')
	w.uint(uint64(len(x)))
	for _, k := range sortedKeys(x) {
		w.str(k)
		if !w.value(x[k]) {
			return false
		}
	}
	return true
}

// mapString hashes x's entries in key order, each value counted as a
// node; false past memoMaxNodes.
func (w *memoWriter) mapString(x map[string]string) bool {
	if !w.spend(len(x), 0) {
		return false
	}
	w.tag('M')
	w.uint(uint64(len(x)))
	for _, k := range sortedKeys(x) {
		w.str(k)
		w.str(x[k])
	}
	return true
}

// listAny hashes x's elements in order; false when they would pass
// memoMaxNodes or one cannot be hashed.
func (w *memoWriter) listAny(x []any) bool {
	if w.nodes+len(x) > memoMaxNodes {
		return false
	}
	w.tag('l')
	w.uint(uint64(len(x)))
	for _, e := range x {
		if !w.value(e) {
			return false
		}
	}
	return true
}

// listString hashes x's elements in order, each counted as a node; false
// past memoMaxNodes.
func (w *memoWriter) listString(x []string) bool {
	if !w.spend(len(x), 0) {
		return false
	}
	w.tag('L')
	w.uint(uint64(len(x)))
	for _, e := range x {
		w.str(e)
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
