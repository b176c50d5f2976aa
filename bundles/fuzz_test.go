package bundles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bundle-adapter/bundle-adapter/task"
)

// FuzzFingerprint checks the two promises of the fingerprint on arbitrary
// JSON documents (placed as the one manifest of a bundle):
//
//   - same meaning, same fingerprint: the document written again with its
//     keys in another order, other whitespace, other string escapes and
//     other spellings of every number (1, 1.0, 10e-1, 0.1e1, ...) has the
//     same canonical form and the same fingerprint; canonicalizing the
//     canonical form again changes nothing;
//   - different content, different fingerprint: changing one leaf value
//     (or renaming one key) changes the fingerprint.
//
// seed drives the respelling; leaf picks the value (or key) to change.
// Seeds: testdata/fuzz/FuzzFingerprint (regressions included) and the
// bundle fixtures of testdata as JSON.
func FuzzFingerprint(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no bundle fixtures (%v)", err)
	}
	for i, file := range files {
		// Fixtures that need other params than fuzzFixtureParams are left out.
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		m, err := task.CompileManifestFile(file, data)
		if err != nil {
			continue
		}
		work, err := Render(m, fuzzFixtureParams(), testNow)
		if err != nil {
			continue
		}
		doc, err := json.Marshal(work)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(doc, uint64(i), uint16(i*7))
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "bundle.canonical.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden, uint64(42), uint16(3))
	f.Add([]byte(`{"a":1,"b":[1.0,1e0,-0,0.5,1e21,1e-7,9007199254740993,"<&>\u2028"],"c":{"d":null,"e":true}}`), uint64(7), uint16(5))
	f.Fuzz(func(t *testing.T, doc []byte, seed uint64, leaf uint16) {
		v, ok := fuzzDecode(doc)
		if !ok {
			return
		}
		canon, cerr := Canonical(v)
		fp, ferr := Fingerprint(fuzzWork(v))
		if (cerr == nil) != (ferr == nil) {
			t.Fatalf("Canonical error %v but Fingerprint error %v", cerr, ferr)
		}

		// Same meaning.
		var buf bytes.Buffer
		rs := &respeller{r: rand.New(rand.NewPCG(seed, seed>>32^0x9e3779b97f4a7c15)), w: &buf}
		rs.value(v)
		v2, ok := fuzzDecode(buf.Bytes())
		if !ok {
			t.Fatalf("respelled document is not JSON:\n%s\n(from %s)", buf.Bytes(), doc)
		}
		canon2, cerr2 := Canonical(v2)
		fp2, ferr2 := Fingerprint(fuzzWork(v2))
		if cerr != nil {
			if cerr2 == nil || ferr2 == nil {
				t.Fatalf("Canonical fails on the document (%v) but not on its respelling %s", cerr, buf.Bytes())
			}
			return
		}
		if cerr2 != nil || ferr2 != nil {
			t.Fatalf("respelling %s fails (%v, %v) where the document does not", buf.Bytes(), cerr2, ferr2)
		}
		if !bytes.Equal(canon, canon2) || fp != fp2 {
			t.Fatalf("same meaning, different canonical form:\n doc       %s\n respelled %s\n canonical %s\n     again %s", doc, buf.Bytes(), canon, canon2)
		}
		if !json.Valid(canon) {
			t.Fatalf("canonical form is not JSON: %s", canon)
		}
		v3, _ := fuzzDecode(canon)
		if canon3, err := Canonical(v3); err != nil || !bytes.Equal(canon, canon3) {
			t.Fatalf("canonicalizing the canonical form changes it (%v):\n %s\n %s", err, canon, canon3)
		}

		// Different content.
		changed, what := fuzzChange(v, int(leaf))
		fpc, err := Fingerprint(fuzzWork(changed))
		if err != nil {
			t.Fatalf("after %s: %v", what, err)
		}
		if fpc == fp {
			cc, _ := Canonical(changed)
			t.Fatalf("%s did not change the fingerprint:\n before %s\n after  %s", what, canon, cc)
		}
	})
}

func fuzzFixtureParams() map[string]any {
	p := testParams()
	p["clusterId"] = "c1"
	p["namespaces"] = []any{"ns-a", "ns-b"}
	p["replicas"] = 2
	return p
}

// fuzzWork places doc as the one manifest of a bundle.
func fuzzWork(doc any) map[string]any {
	return map[string]any{
		"apiVersion": "work.open-cluster-management.io/v1", "kind": "ManifestWork",
		"metadata": map[string]any{"name": "fuzz"},
		"spec":     map[string]any{"workload": map[string]any{"manifests": []any{doc}}},
	}
}

// fuzzDecode decodes exactly one JSON value with json.Number numbers.
func fuzzDecode(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

// respeller writes a decoded JSON value with the same meaning and a
// different spelling.
type respeller struct {
	r *rand.Rand
	w *bytes.Buffer
}

func (s *respeller) space() {
	for range s.r.IntN(3) {
		s.w.WriteByte(" \t\n\r"[s.r.IntN(4)])
	}
}

func (s *respeller) value(v any) {
	s.space()
	switch x := v.(type) {
	case nil:
		s.w.WriteString("null")
	case bool:
		s.w.WriteString(strconv.FormatBool(x))
	case string:
		s.string(x)
	case json.Number:
		s.w.WriteString(s.number(string(x)))
	case []any:
		s.w.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				s.space()
				s.w.WriteByte(',')
			}
			s.value(e)
		}
		s.space()
		s.w.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		switch s.r.IntN(3) {
		case 0:
			slices.Reverse(keys)
		case 1:
			s.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		}
		s.w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				s.space()
				s.w.WriteByte(',')
			}
			s.space()
			s.string(k)
			s.space()
			s.w.WriteByte(':')
			s.value(x[k])
		}
		s.space()
		s.w.WriteByte('}')
	default:
		panic(fmt.Sprintf("unexpected %T", v))
	}
	s.space()
}

// string writes str quoted, escaping characters at random (\uXXXX,
// surrogate pairs, the short escapes, \/).
func (s *respeller) string(str string) {
	s.w.WriteByte('"')
	for _, r := range str {
		escape := r < 0x20 || r == '"' || r == '\\' || s.r.IntN(4) == 0
		if !escape {
			s.w.WriteRune(r)
			continue
		}
		short := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
		if e, ok := short[r]; ok && s.r.IntN(2) == 0 {
			s.w.WriteString(e)
			continue
		}
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(s.w, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		if r == utf8.RuneError {
			s.w.WriteString(`\ufffd`)
			continue
		}
		fmt.Fprintf(s.w, `\u%04x`, r)
	}
	s.w.WriteByte('"')
}

// number respells a JSON number with exactly the same value: the digits
// with k more trailing zeros and the exponent lowered by k, written as an
// integer, a decimal or in exponent form.
func (s *respeller) number(num string) string {
	neg, digits, exp, ok := splitNumber(num)
	if !ok {
		return num
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if digits == "0" {
		return sign + []string{"0", "0.0", "0.000", "0e7", "0E-3", "0.0e+1"}[s.r.IntN(6)]
	}
	k := s.r.IntN(4)
	digits += strings.Repeat("0", k)
	exp -= int64(k)
	switch s.r.IntN(3) {
	case 0: // exponent form
		e := "e"
		if s.r.IntN(2) == 0 {
			e = "E"
		}
		if exp >= 0 && s.r.IntN(2) == 0 {
			e += "+"
		}
		return sign + digits + e + strconv.FormatInt(exp, 10)
	default: // integer or decimal, when the exponent is small
		if exp >= 0 && exp < 30 {
			return sign + digits + strings.Repeat("0", int(exp))
		}
		if exp < 0 && exp > -400 {
			p := len(digits) + int(exp)
			if p > 0 {
				return sign + digits[:p] + "." + digits[p:]
			}
			return sign + "0." + strings.Repeat("0", -p) + digits
		}
		return sign + digits + "e" + strconv.FormatInt(exp, 10)
	}
}

// splitNumber reads a JSON number as sign, digits without leading zeros
// ("0" for zero) and a decimal exponent: value = digits × 10^exp.
func splitNumber(num string) (neg bool, digits string, exp int64, ok bool) {
	s := num
	if neg = strings.HasPrefix(s, "-"); neg {
		s = s[1:]
	}
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		var err error
		if exp, err = strconv.ParseInt(strings.TrimPrefix(e, "+"), 10, 64); err != nil || exp > 1e9 || exp < -1e9 {
			return false, "", 0, false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits = strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	if digits == "" {
		digits, exp = "0", 0
	}
	return neg, digits, exp, true
}

// fuzzChange returns a deep copy of v with one leaf changed (picked by n
// among the leaves and keys in document order) and says what it did.
func fuzzChange(v any, n int) (any, string) {
	count := fuzzCountLeaves(v)
	target := n % count
	i := 0
	var what string
	var walk func(v any, path string) any
	walk = func(v any, path string) any {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out := make(map[string]any, len(x)+1)
			if len(x) == 0 {
				if i == target {
					what = "adding a key to the empty object at " + path
					out["x"] = true
				}
				i++
				return out
			}
			for _, k := range keys {
				key := k
				if i == target {
					key = k + "x"
					for _, clash := x[key]; clash; _, clash = x[key] {
						key += "x"
					}
					what = fmt.Sprintf("renaming key %q at %s to %q", k, path, key)
				}
				i++
				out[key] = walk(x[k], path+"."+k)
			}
			return out
		case []any:
			out := make([]any, len(x))
			if len(x) == 0 {
				if i == target {
					what = "appending to the empty list at " + path
					out = append(out, nil)
				}
				i++
				return out
			}
			for j, e := range x {
				out[j] = walk(e, fmt.Sprintf("%s[%d]", path, j))
			}
			return out
		}
		if i != target {
			i++
			return v
		}
		i++
		what = fmt.Sprintf("changing %v at %s", v, path)
		switch x := v.(type) {
		case nil:
			return false
		case bool:
			return !x
		case string:
			return x + "x"
		case json.Number:
			return fuzzOtherNumber(x)
		}
		panic(fmt.Sprintf("unexpected %T", v))
	}
	out := walk(v, "$")
	return out, what
}

// fuzzCountLeaves counts what fuzzChange can change: every key, every
// scalar, every empty object or list.
func fuzzCountLeaves(v any) int {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return 1
		}
		n := 0
		for _, e := range x {
			n += 1 + fuzzCountLeaves(e)
		}
		return n
	case []any:
		if len(x) == 0 {
			return 1
		}
		n := 0
		for _, e := range x {
			n += fuzzCountLeaves(e)
		}
		return n
	}
	return 1
}

// fuzzOtherNumber is a number whose canonical form surely differs from n's:
// integers move by one, small floats by one, large floats change sign.
func fuzzOtherNumber(n json.Number) json.Number {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		if i == math.MaxInt64 {
			return json.Number(strconv.FormatInt(i-1, 10))
		}
		return json.Number(strconv.FormatInt(i+1, 10))
	}
	if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
		return json.Number(strconv.FormatUint(u-1, 10))
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return json.Number("0.5") // the original does not canonicalize at all
	}
	if math.Abs(f) < 1<<52 {
		return json.Number(strconv.FormatFloat(f+1, 'g', -1, 64))
	}
	return json.Number(strconv.FormatFloat(-f, 'g', -1, 64))
}

// FuzzFingerprint found that an integer beyond 2^53 spelled with an
// exponent or a fraction (9007199270000001000E-3) was rounded through
// float64 while its plain spelling printed exactly: same number, different
// fingerprint. Every spelling of an integer that fits 64 bits now prints
// exactly; other numbers still go through float64.
func TestCanonicalIntegerSpellings(t *testing.T) {
	tests := []struct {
		want      string
		spellings []string
	}{
		{"9007199270000001", []string{"9007199270000001", "9007199270000001000E-3", "9007199270000001.0", "900719927000000.1e1", "9.007199270000001e15"}},
		{"18446744073709551615", []string{"18446744073709551615", "18446744073709551615.000", "1844674407370955161.5e1"}},
		{"-9223372036854775808", []string{"-9223372036854775808", "-9223372036854775808.0", "-92233720368547758.08e2"}},
		{"1", []string{"1", "1.0", "1e0", "10e-1", "0.1e1", "1.000e+0"}},
		{"0", []string{"0", "-0", "0.0", "-0.0e5", "0e-7"}},
		// Past uint64 every spelling rounds through float64 alike.
		{"18446744073709552000", []string{"18446744073709551616", "18446744073709551616.0", "1.8446744073709551616e19"}},
		{"0.5", []string{"0.5", "5e-1", "0.50"}},
	}
	for _, tt := range tests {
		for _, s := range tt.spellings {
			got, err := Canonical(json.Number(s))
			if err != nil || string(got) != tt.want {
				t.Errorf("Canonical(%s) = %s, %v; want %s", s, got, err, tt.want)
			}
		}
	}
	for _, bad := range []string{"1e++5", "1e", "1.5.5", "--1", "1e400"} {
		if got, err := Canonical(json.Number(bad)); err == nil {
			t.Errorf("Canonical(%s) = %s, want an error", bad, got)
		}
	}
}
