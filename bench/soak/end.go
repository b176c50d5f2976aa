package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// deadLetters takes every message of the dead-letter queue (an absent queue
// is none) and writes each with its reason header to path.
func deadLetters(rabbitURL, queue, path string) error {
	out, err := newRecorder(path)
	if err != nil {
		return err
	}
	defer out.close()
	conn, err := amqp.DialConfig(rabbitURL, amqp.Config{Dial: amqp.DefaultDial(10 * time.Second)})
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if _, err := ch.QueueDeclarePassive(queue, true, false, false, false, nil); err != nil {
		return nil // no queue: nothing was dead-lettered
	}
	for {
		m, ok, err := ch.Get(queue, true)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		var ev struct {
			ID   string `json:"id"`
			Data struct {
				ID         string `json:"id"`
				Generation int    `json:"generation"`
			} `json:"data"`
		}
		_ = json.Unmarshal(m.Body, &ev)
		reason, _ := m.Headers["x-dead-letter-reason"].(string)
		out.add(check.DeadLetter{EventID: ev.ID, Cluster: ev.Data.ID, Generation: ev.Data.Generation, Reason: reason})
	}
}

// listBundles writes every bundle of source that Maestro holds (REST,
// paged) to path.
func listBundles(rest, source, path string) error {
	out, err := newRecorder(path)
	if err != nil {
		return err
	}
	defer out.close()
	for page := 1; ; page++ {
		q := url.Values{"search": {fmt.Sprintf("source='%s'", source)}, "size": {"500"}, "page": {fmt.Sprint(page)}}
		resp, err := httpClient.Get(rest + "/api/maestro/v1/resource-bundles?" + q.Encode())
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("list resource bundles: HTTP %d: %s", resp.StatusCode, body)
		}
		var list struct {
			Total int               `json:"total"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			return err
		}
		if page == 1 && len(list.Items) > 0 {
			_ = os.WriteFile(path+".sample.json", list.Items[0], 0o644)
		}
		for _, raw := range list.Items {
			out.add(bundleOf(raw))
		}
		if len(list.Items) == 0 || page*500 >= list.Total {
			return nil
		}
	}
}

// bundleOf reads what the checker needs of one REST resource bundle.
func bundleOf(raw json.RawMessage) check.Bundle {
	var b struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Consumer  string `json:"consumer_name"`
		DeletedAt string `json:"deleted_at"`
		Metadata  struct {
			Name              string            `json:"name"`
			Annotations       map[string]string `json:"annotations"`
			DeletionTimestamp string            `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(raw, &b)
	name := b.Metadata.Name
	if name == "" {
		name = b.Name
	}
	return check.Bundle{Consumer: b.Consumer, Name: name, ID: b.ID,
		Generation: b.Metadata.Annotations[generationAnnotation], Fingerprint: b.Metadata.Annotations[fingerprintAnnotation],
		Deleting: b.DeletedAt != "" || b.Metadata.DeletionTimestamp != ""}
}
