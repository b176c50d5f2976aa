package maestroclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openshift-online/maestro/pkg/api/openapi"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"
	"open-cluster-management.io/sdk-go/pkg/cloudevents/clients/work/payload"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// restReader reads resource bundles from Maestro's REST API
// (GET /api/maestro/v1/resource-bundles/{id}) and decodes each response once,
// straight into a ManifestWork. The generated openapi client decoded the
// body into maps and grpcsource.ToManifestWork then encoded and decoded
// every part again: together a third of the adapter's CPU per event.
type restReader struct {
	client *http.Client
	base   string // URL without trailing slash
	// slots bounds the reads in flight (Options.MaxConcurrentReads).
	slots chan struct{}
}

// maxBundleResponse bounds a response body: bundles are refused above
// 500 KiB when rendered; their status adds little.
const maxBundleResponse = 8 << 20

// bundle reads one bundle by id. A failure is classified: ErrNotFound on
// 404, ErrUnavailable on transport failures and 5xx (see classifyHTTP).
func (r *restReader) bundle(ctx context.Context, id string) (*workv1.ManifestWork, error) {
	body, err := r.get(ctx, "/api/maestro/v1/resource-bundles/"+url.PathEscape(id), maxBundleResponse)
	if err != nil {
		return nil, err
	}
	work, err := decodeBundle(body)
	if err != nil {
		return nil, fmt.Errorf("decode resource bundle: %w", err)
	}
	return work, nil
}

// get reads path (with its query) from the REST API, waiting for a free
// read slot first, and returns the body of a 200 answer, failing when it is
// longer than limit bytes. A failure is
// classified (see classifyHTTP); the context's error, classified
// (waitEnded), when it ends while waiting for a slot.
func (r *restReader) get(ctx context.Context, path string, limit int64) ([]byte, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, waitEnded("waiting for a read slot", ctx.Err())
	}
	defer func() { <-r.slots }()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", adapter.ErrInvalid, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, classifyHTTP(nil, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, classifyHTTP(nil, fmt.Errorf("read response: %w", err))
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: response of %s longer than %d bytes", adapter.ErrInvalid, path, limit)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, classifyHTTP(resp, errors.New(errorReason(resp, body)))
	}
	return body, nil
}

// errorReason is the reason of Maestro's error body; otherwise the HTTP
// status and the start of a plain-text body, which is what answers a
// misconfigured client (e.g. "Client sent an HTTP request to an HTTPS
// server.").
func errorReason(resp *http.Response, body []byte) string {
	var e openapi.Error
	if json.Unmarshal(body, &e) == nil && e.Reason != nil && *e.Reason != "" {
		return *e.Reason
	}
	text := strings.TrimSpace(string(body))
	if text == "" || !utf8.ValidString(text) || strings.HasPrefix(text, "{") || strings.HasPrefix(text, "<") {
		return resp.Status
	}
	if r := []rune(text); len(r) > maxReasonText {
		text = string(r[:maxReasonText]) + "..."
	}
	return resp.Status + ": " + text
}

// maxReasonText bounds the body text quoted in an error.
const maxReasonText = 200

// wireBundle is the part of openapi.ResourceBundle a ManifestWork is made
// of, each member kept as the server wrote it until it is decoded into its
// final type.
type wireBundle struct {
	Version         *int32            `json:"version"`
	Metadata        json.RawMessage   `json:"metadata"`
	Manifests       []json.RawMessage `json:"manifests"`
	DeleteOption    json.RawMessage   `json:"delete_option"`
	ManifestConfigs []json.RawMessage `json:"manifest_configs"`
	// Status is decoded with the rest (absent, null and {} all leave the
	// work's status empty, as ToManifestWork does).
	Status *payload.ManifestBundleStatus `json:"status"`
}

// decodeBundle turns a resource bundle body into the ManifestWork
// grpcsource.ToManifestWork makes of it: metadata from the bundle's
// metadata, generation and resourceVersion from its version, manifests as
// raw JSON, delete option (absent when empty), manifest configs, and status
// conditions and per-manifest status.
func decodeBundle(body []byte) (*workv1.ManifestWork, error) {
	var rb wireBundle
	if err := json.Unmarshal(body, &rb); err != nil {
		return nil, err
	}
	return rb.work()
}

// work is the ManifestWork decodeBundle makes of rb.
func (rb *wireBundle) work() (*workv1.ManifestWork, error) {
	if rb.Version == nil {
		return nil, errors.New("resource bundle has no version")
	}
	work := &workv1.ManifestWork{}
	if !emptyJSON(rb.Metadata) {
		if err := json.Unmarshal(rb.Metadata, &work.ObjectMeta); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	}
	work.ResourceVersion = strconv.FormatInt(int64(*rb.Version), 10)
	work.Generation = int64(*rb.Version)

	work.Spec.Workload.Manifests = make([]workv1.Manifest, 0, len(rb.Manifests))
	for _, m := range rb.Manifests {
		if emptyJSON(m) {
			m = json.RawMessage("{}")
		}
		work.Spec.Workload.Manifests = append(work.Spec.Workload.Manifests,
			workv1.Manifest{RawExtension: runtime.RawExtension{Raw: m}})
	}
	if !emptyJSON(rb.DeleteOption) {
		work.Spec.DeleteOption = &workv1.DeleteOption{}
		if err := json.Unmarshal(rb.DeleteOption, work.Spec.DeleteOption); err != nil {
			return nil, fmt.Errorf("delete_option: %w", err)
		}
	}
	work.Spec.ManifestConfigs = make([]workv1.ManifestConfigOption, len(rb.ManifestConfigs))
	for i, c := range rb.ManifestConfigs {
		if err := json.Unmarshal(c, &work.Spec.ManifestConfigs[i]); err != nil {
			return nil, fmt.Errorf("manifest_configs[%d]: %w", i, err)
		}
	}
	if st := rb.Status; st != nil {
		work.Status = workv1.ManifestWorkStatus{Conditions: st.Conditions,
			ResourceStatus: workv1.ManifestResourceStatus{Manifests: st.ResourceStatus}}
	}
	return work, nil
}

// emptyJSON reports an absent member, null or an empty object, which
// ToManifestWork treats alike.
func emptyJSON(m json.RawMessage) bool {
	m = bytes.TrimSpace(m)
	if len(m) == 0 || string(m) == "null" {
		return true
	}
	return m[0] == '{' && len(bytes.TrimSpace(m[1:len(m)-1])) == 0
}
