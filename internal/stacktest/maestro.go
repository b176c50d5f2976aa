package stacktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// maestroClient is the HTTP client of RegisterConsumers and ListBundles;
// its timeout bounds each request.
var maestroClient = &http.Client{Timeout: 30 * time.Second}

// RegisterConsumers registers each consumer name in the Maestro whose REST
// API is at rest. A consumer that already exists (409) is fine; any other
// answer but 200 or 201 is an error naming the consumer, the status and
// Maestro's message, and stops the registration there.
func RegisterConsumers(ctx context.Context, rest string, names []string) error {
	for _, n := range names {
		if err := registerConsumer(ctx, rest, n); err != nil {
			return fmt.Errorf("register consumer %s: %w", n, err)
		}
	}
	return nil
}

func registerConsumer(ctx context.Context, rest, name string) error {
	body, err := json.Marshal(map[string]string{"name": name})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rest+"/api/maestro/v1/consumers", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := maestroClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch resp.StatusCode {
	case http.StatusCreated, http.StatusOK, http.StatusConflict:
		return nil
	}
	return fmt.Errorf("HTTP %d: %s", resp.StatusCode, msg)
}

// ListBundles lists the resource bundles of the Maestro whose REST API is
// at rest that match search (Maestro's search language, e.g.
// "source='s' and consumer_name='c'"), pageSize a page, and calls each
// with every bundle, in order. It returns the total
// Maestro reported. With each nil it asks for the first page alone: one
// request, for the total. An answer but 200 is an error with Maestro's
// message; the bundles already handed to each stay handed.
func ListBundles(ctx context.Context, rest, search string, pageSize int, each func(Bundle)) (total int, err error) {
	for page := 1; ; page++ {
		q := url.Values{"search": {search}, "size": {strconv.Itoa(pageSize)}, "page": {strconv.Itoa(page)}}
		list, err := bundlesPage(ctx, rest+"/api/maestro/v1/resource-bundles?"+q.Encode())
		if err != nil {
			return total, err
		}
		total = list.Total
		if each == nil {
			return total, nil
		}
		for _, raw := range list.Items {
			var b Bundle
			_ = json.Unmarshal(raw, &b) // a bundle of another shape reads as empty, Raw kept
			b.Raw = raw
			each(b)
		}
		if len(list.Items) == 0 || page*pageSize >= list.Total {
			return total, nil
		}
	}
}

// Bundle is what the harnesses read of one of Maestro's resource bundles
// (REST), and the bundle as Maestro sent it.
type Bundle struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Consumer  string `json:"consumer_name"`
	Version   int    `json:"version"` // 1 when created, one more for each update
	DeletedAt string `json:"deleted_at"`
	Metadata  struct {
		Name              string            `json:"name"`
		Annotations       map[string]string `json:"annotations"`
		DeletionTimestamp string            `json:"deletionTimestamp"`
	} `json:"metadata"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
	Raw json.RawMessage `json:"-"`
}

// Condition is the status of the bundle's condition typ ("" without it).
func (b *Bundle) Condition(typ string) string {
	for _, c := range b.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// bundleList is one page of Maestro's resource bundles.
type bundleList struct {
	Total int               `json:"total"`
	Items []json.RawMessage `json:"items"`
}

func bundlesPage(ctx context.Context, u string) (*bundleList, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := maestroClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("list resource bundles: HTTP %d: %s", resp.StatusCode, msg)
	}
	var list bundleList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, fmt.Errorf("list resource bundles: %w", err)
	}
	return &list, nil
}
