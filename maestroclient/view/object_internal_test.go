package view

import (
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var decodeObjectSeeds = []string{
	`{}`,
	` { "a" : 1 , "b":[ ] , "c":{ } } `,
	`{"int":3,"neg":-2,"zero":0,"negzero":-0,"max":9223372036854775807,"over":9223372036854775808,
	  "min":-9223372036854775808,"under":-9223372036854775809,"big":9007199254740993,
	  "float":0.5,"whole":1.0,"exp":1e3,"expneg":1E-3,"expplus":2e+2,"fexp":1.5e300}`,
	`{"t":true,"f":false,"n":null,"l":[1,"x",[],{},null,[[true]]],"e":""}`,
	`{"esc":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u2028\ud83d\ude00","lone":"\ud800x","utf8":"héllo ✓"}`,
	`{"dup":1,"dup":2}`,
	`{"metadata":{"name":"c1","annotations":{"bundle-adapter.io/fingerprint":"fp"}},"kind":"ManifestWork","k\u0069nd":"x"}`,
	"{\"bad\":\"\xff\xfe\"}",
	`{"a":01}`, `{"a":+1}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":0x10}`, `{"a":1e400}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":"x}`, `{"a":"x\`, `{"a" 1}`, `{"a":1,}`, `{"a":[1,]}`, `{"a":[1 2]}`,
	`{"a":1}x`, `[1]`, `null`, `"s"`, ``, `{`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"\u12"}`,
	`{"a":1}` + "\n\t\r ",
	`{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
}

// decodeObject gives what util/json gives: the same value with the same Go
// types, or an error where util/json fails.
func checkDecodeObject(t *testing.T, doc string) {
	t.Helper()
	got, gotErr := decodeObject([]byte(doc))
	var want map[string]any
	wantErr := utiljson.Unmarshal([]byte(doc), &want)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, util/json %v", doc, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", doc, got, want)
	}
}

func TestDecodeObjectIsUtilJSON(t *testing.T) {
	for _, doc := range decodeObjectSeeds {
		checkDecodeObject(t, doc)
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, doc := range decodeObjectSeeds {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { checkDecodeObject(t, doc) })
}
