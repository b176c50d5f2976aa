package bundles

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
)

// TestFingerprintCoversEveryWorkField walks workv1.ManifestWork by
// reflection, field by field down to metadata's and spec's members, sets
// each one on a work and requires that the fingerprint changes, unless the
// field is listed in NotFingerprinted with its reason. A field the type
// gains later is neither, and fails here.
func TestFingerprintCoversEveryWorkField(t *testing.T) {
	base := workv1.ManifestWork{
		TypeMeta:   metav1.TypeMeta{APIVersion: "work.open-cluster-management.io/v1", Kind: "ManifestWork"},
		ObjectMeta: metav1.ObjectMeta{Name: "b1", Namespace: "c1"},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{
			{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)}},
		}}},
	}
	baseFP := workFP(t, &base)
	seen := map[string]bool{}
	for _, f := range workFieldPaths(reflect.TypeOf(base), "") {
		seen[f.path] = true
		t.Run(f.path, func(t *testing.T) {
			work := base.DeepCopy()
			v := reflect.ValueOf(work).Elem()
			field := v.FieldByIndex(f.index)
			field.Set(sampleValue(t, field.Type()))
			changed := workFP(t, work) != baseFP
			reason, listed := NotFingerprinted[f.path]
			switch {
			case listed && changed:
				t.Errorf("%s is listed as not fingerprinted (%s), but changing it changes the fingerprint", f.path, reason)
			case !listed && !changed:
				t.Errorf("%s is sent but neither fingerprinted nor listed in NotFingerprinted with a reason", f.path)
			}
		})
	}
	for p := range NotFingerprinted {
		if !seen[p] {
			t.Errorf("NotFingerprinted lists %s, which workv1.ManifestWork does not have", p)
		}
	}
}

func workFP(t *testing.T, w *workv1.ManifestWork) string {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := Fingerprint(u)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

type workField struct {
	path  string
	index []int
}

// workFieldPaths lists the JSON paths of t's fields: the members of
// metadata, of spec and of spec.workload one by one, any other struct
// field whole. Inline (embedded) structs contribute their fields.
func workFieldPaths(t reflect.Type, prefix string) []workField {
	var out []workField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			for _, f := range workFieldPaths(sf.Type, prefix) {
				out = append(out, workField{f.path, append([]int{i}, f.index...)})
			}
			continue
		}
		path := prefix + name
		switch path {
		case "metadata", "spec", "spec.workload":
			for _, f := range workFieldPaths(sf.Type, path+".") {
				out = append(out, workField{f.path, append([]int{i}, f.index...)})
			}
			continue
		}
		out = append(out, workField{path, []int{i}})
	}
	return out
}

// sampleValue is a non-zero value of typ: every string "x", every number
// 1, every list and map of one filled element, a manifest a ConfigMap.
func sampleValue(t *testing.T, typ reflect.Type) reflect.Value {
	t.Helper()
	v := reflect.New(typ).Elem()
	fillSample(t, v, 0)
	return v
}

var (
	sampleTimeType = reflect.TypeOf(metav1.Time{})
	sampleRawType  = reflect.TypeOf(runtime.RawExtension{})
	sampleFieldsV1 = reflect.TypeOf(metav1.FieldsV1{})
)

func fillSample(t *testing.T, v reflect.Value, depth int) {
	if depth > 8 {
		return
	}
	switch {
	case v.Type() == sampleTimeType:
		v.Set(reflect.ValueOf(metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))))
		return
	case v.Type() == sampleRawType:
		v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`)}))
		return
	case v.Type() == sampleFieldsV1:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillSample(t, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillSample(t, s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fillSample(t, k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fillSample(t, e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillSample(t, v.Field(i), depth+1)
			}
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	}
}
