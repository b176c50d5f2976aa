package adapter

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestObjectMetaMatchesConverter: objectMeta gives the metadata and the
// error (or none) FromUnstructured gives, over metadata it converts itself
// (fast true) and metadata it leaves to the converter.
func TestObjectMetaMatchesConverter(t *testing.T) {
	const fp = `"annotations":{"bundle-adapter.io/fingerprint":"abc","note":"x"}`
	cases := []struct {
		name string
		json string
		fast bool // converted without the converter
	}{
		{"packed work", `{"name":"c1-setup","namespace":"c1","uid":"u-1","resourceVersion":"7","generation":3,"creationTimestamp":null,` + fp + `}`, true},
		{"deleting", `{"name":"n","generation":1,"creationTimestamp":"2026-11-30T10:00:00Z","deletionTimestamp":"2026-11-30T10:05:00Z",` + fp + `}`, true},
		{"offset and fraction", `{"creationTimestamp":"2026-11-30T10:00:00.123456+02:00","deletionTimestamp":"2026-11-30T10:00:00.5-07:30"}`, true},
		{"labels finalizers generateName", `{"generateName":"g-","labels":{"a":"b","c":""},"finalizers":["f1","f2"]}`, true},
		{"empty", `{}`, true},
		{"deletionTimestamp null", `{"deletionTimestamp":null}`, true},
		{"bad time", `{"creationTimestamp":"yesterday"}`, false},
		{"bad deletion time", `{"deletionTimestamp":"2026-13-30T10:00:00Z"}`, false},
		{"time not a string", `{"creationTimestamp":5}`, false},
		{"time not ASCII", `{"creationTimestamp":"2026-11-30T10:00:00Z\u00e9"}`, false},
		{"time escaped in JSON", `{"creationTimestamp":"2026-11-30T10:00:00\u005a"}`, true},
		{"time without zone", `{"creationTimestamp":"2026-11-30T10:00:00"}`, false},
		{"generation float", `{"generation":1.5}`, false},
		{"generation whole float", `{"generation":1.0}`, false},
		{"generation string", `{"generation":"1"}`, false},
		{"name number", `{"name":5}`, false},
		{"uid bool", `{"uid":true}`, false},
		{"name null", `{"name":null}`, false},
		{"labels empty", `{"labels":{}}`, false},
		{"labels null", `{"labels":null}`, false},
		{"labels number value", `{"labels":{"a":1}}`, false},
		{"annotations list", `{"annotations":["a"]}`, false},
		{"finalizers empty", `{"finalizers":[]}`, false},
		{"finalizers number", `{"finalizers":[1]}`, false},
		{"owner references", `{"name":"n","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"u"}]}`, false},
		{"managed fields", `{"name":"n","managedFields":[{"manager":"m","operation":"Apply"}]}`, false},
		{"unknown key", `{"name":"n","Name":"other"}`, false},
		{"grace period", `{"deletionGracePeriodSeconds":30}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var u map[string]any
			if err := utiljson.Unmarshal([]byte(c.json), &u); err != nil {
				t.Fatal(err)
			}
			var want, got metav1.ObjectMeta
			wantErr := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &want)
			gotErr := objectMeta(u, &got)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Fatalf("error %v, converter's %v", gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("metadata\n%#v\nconverter's\n%#v", got, want)
			}
			var probe metav1.ObjectMeta
			if fast := plainObjectMeta(u, &probe); fast != c.fast {
				t.Fatalf("converted without the converter: %v, want %v", fast, c.fast)
			}
		})
	}
}
