package config

import (
	"strconv"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// Bound is the range one leaf of a config file may take: a whole number's
// value, a Duration's length, a float's value, or the length in bytes of a
// name. Min and Max are inclusive. Every numeric leaf and every name leaf
// of AdapterConfig and BrokerConfig has one (a reflection test enforces it),
// and checkBounds applies them to the value in effect after the file, the
// environment and the flags, so validate and serve refuse the same values.
type Bound struct {
	// Min and Max bound a whole number, a Duration (in nanoseconds: write
	// them as time.Duration) or a name's length in bytes.
	Min, Max int64
	// MinF and MaxF bound a float leaf instead.
	MinF, MaxF float64
	// Zero accepts 0 below Min: 0 means the default, which Zero names.
	Zero string
	// Why says where Max comes from; errors and docs show it.
	Why string
}

const (
	day = 24 * time.Hour
	// maxAMQPName is AMQP 0-9-1's short string: queue, exchange, consumer
	// tag and routing key are at most 255 bytes (not characters).
	maxAMQPName = 255
	// maxPubSubName is Pub/Sub's limit on a topic or subscription id.
	maxPubSubName = 255
	// maxDNSName is a DNS name's length (server names, kubeconfig context).
	maxDNSName = 253
	// MaxParallelism bounds subscriber.parallelism: each worker is a
	// goroutine holding one event and its clients' connections.
	MaxParallelism = 1024
)

const (
	whyAMQPName     = "AMQP names are short strings of at most 255 bytes"
	whyPubSubName   = "Pub/Sub ids are at most 255 characters"
	whyDNSName      = "a DNS name is at most 253 bytes"
	whyLabel        = "it is a log and metrics label"
	whyRequest      = "one request waits no longer"
	whyRetries      = "config.MaxRetryAttempts: the broker redelivers anyway"
	whyPubSubLimits = "Pub/Sub's limit"
	whyMemory       = "what is held in memory at once"
)

// AdapterBounds bounds the adapter config's leaves, keyed by YAML path.
// defaultConsumerWritesPerSecond is what a zero
// clients.maestro.consumer_writes_per_second means: the Maestro client's
// write floor (maestroclient.DefaultConsumerWritesPerSecond; config does not
// import the client, cmd's TestMaestroZeroMeansTheClientDefault ties them).
const defaultConsumerWritesPerSecond = 30

var AdapterBounds = map[string]Bound{
	"adapter.name":    {Max: 253, Why: whyLabel},
	"adapter.version": {Max: 128, Why: whyLabel},

	"clients.hyperfleet_api.version":                   {Max: 63, Why: "it is a URL path segment"},
	"clients.hyperfleet_api.timeout":                   {Max: int64(10 * time.Minute), Zero: "10s", Why: whyRequest},
	"clients.hyperfleet_api.retry_attempts":            {Min: 1, Max: configfile.MaxRetryAttempts, Why: whyRetries},
	"clients.hyperfleet_api.base_delay":                {Max: int64(MaxAPIRetryDelay), Zero: "200ms", Why: "config.MaxAPIRetryDelay"},
	"clients.hyperfleet_api.max_delay":                 {Max: int64(day), Zero: "30s", Why: "anything above config.MaxAPIRetryDelay (30s) is used as 30s"},
	"clients.hyperfleet_api.auth.token_cache_ttl":      {Max: int64(day), Zero: "read the file on every request", Why: "a rotated token is read within a day"},
	"clients.broker.subscription_id":                   {Max: maxAMQPName, Why: whyAMQPName + "; " + whyPubSubName},
	"clients.broker.topic":                             {Max: maxAMQPName, Why: whyAMQPName + "; " + whyPubSubName},
	"clients.maestro.source_id":                        {Max: maxDNSName, Why: "Maestro's source id names this adapter in every bundle"},
	"clients.maestro.client_id":                        {Max: maxDNSName, Why: whyLabel},
	"clients.maestro.timeout":                          {Max: int64(10 * time.Minute), Zero: "10s", Why: whyRequest},
	"clients.maestro.server_healthiness_timeout":       {Max: int64(10 * time.Minute), Zero: "the client's default", Why: whyRequest},
	"clients.maestro.retry_attempts":                   {Max: configfile.MaxRetryAttempts, Zero: "3", Why: whyRetries},
	"clients.maestro.max_concurrent_reads":             {Max: 1024, Zero: "1", Why: "reads in flight per pod"},
	"clients.maestro.consumer_writes_per_second":       {MaxF: 10_000, Zero: strconv.Itoa(defaultConsumerWritesPerSecond), Why: "writes per second per consumer"},
	"clients.maestro.consumer_write_burst":             {Max: 10_000, Zero: "25", Why: "writes at once per consumer"},
	"clients.maestro.consumer_write_mode":              {Max: 8, Zero: "adaptive", Why: "adaptive or fixed"},
	"clients.maestro.consumer_writes_ceiling":          {MaxF: 10_000, Zero: "400", Why: "writes per second per consumer"},
	"clients.maestro.consumer_write_window":            {Max: 10_000, Zero: "50", Why: "writes outstanding per consumer"},
	"clients.maestro.keepalive.time":                   {Max: int64(day), Zero: "no pings", Why: "a ping at least daily"},
	"clients.maestro.keepalive.timeout":                {Max: int64(10 * time.Minute), Zero: "gRPC's 20s", Why: whyRequest},
	"clients.maestro.auth.tls_config.server_name":      {Max: maxDNSName, Why: whyDNSName},
	"clients.maestro.auth.tls_config.http_server_name": {Max: maxDNSName, Why: whyDNSName},
	"clients.maestro.view.max_age":                     {Max: int64(day), Zero: "5m", Why: "a change no agent reported is seen within a day"},
	"clients.maestro.view.list_page_size":              {Min: 10, Max: 5000, Zero: "1000", Why: "bundles per list request: a page of a few KB each is at most tens of MB"},
	"clients.kubernetes.api_version":                   {Max: 63, Why: "an API version is a DNS label"},
	"clients.kubernetes.context":                       {Max: maxDNSName, Why: "a kubeconfig context name"},
	"clients.kubernetes.qps":                           {MaxF: 10_000, Zero: "client-go's 5", Why: "requests per second to one API server"},
	"clients.kubernetes.burst":                         {Max: 100_000, Zero: "client-go's 10", Why: "requests at once to one API server"},
	"clients.kubernetes.timeout":                       {Max: int64(10 * time.Minute), Zero: "the client's default", Why: whyRequest},
	"clients.kubernetes.field_manager":                 {Max: 128, Why: "the API server refuses a field manager over 128 bytes"},
}

// BrokerBounds bounds the broker config's leaves, keyed by YAML path.
var BrokerBounds = map[string]Bound{
	"broker.rabbitmq.exchange":       {Max: maxAMQPName, Why: whyAMQPName},
	"broker.rabbitmq.queue":          {Max: maxAMQPName, Why: whyAMQPName},
	"broker.rabbitmq.routing_key":    {Max: maxAMQPName, Why: whyAMQPName},
	"broker.rabbitmq.consumer_tag":   {Max: maxAMQPName, Why: whyAMQPName},
	"broker.rabbitmq.prefetch_count": {Max: 65535, Zero: "10", Why: "AMQP's prefetch count is 16 bits"},
	"broker.rabbitmq.prefetch_size":  {Max: 1<<32 - 1, Why: "AMQP's prefetch size is 32 bits"},

	"broker.googlepubsub.project_id":                 {Max: 30, Why: "a Google Cloud project id is at most 30 characters"},
	"broker.googlepubsub.topic":                      {Max: maxPubSubName, Why: whyPubSubName},
	"broker.googlepubsub.subscription":               {Max: maxPubSubName, Why: whyPubSubName},
	"broker.googlepubsub.dead_letter_topic":          {Max: maxPubSubName, Why: whyPubSubName},
	"broker.googlepubsub.ack_deadline_seconds":       {Min: 10, Max: 600, Zero: "60", Why: whyPubSubLimits},
	"broker.googlepubsub.dead_letter_max_attempts":   {Min: 5, Max: 100, Zero: "5", Why: whyPubSubLimits},
	"broker.googlepubsub.max_outstanding_messages":   {Max: 100_000, Zero: "1000", Why: whyMemory},
	"broker.googlepubsub.max_outstanding_bytes":      {Max: 1 << 30, Zero: "the client's default", Why: whyMemory + ", 1 GiB"},
	"broker.googlepubsub.num_goroutines":             {Max: 64, Zero: "the client's default", Why: "receiving streams per replica"},
	"broker.googlepubsub.message_retention_duration": {Min: int64(10 * time.Minute), Max: int64(31 * day), Zero: "Pub/Sub's default", Why: whyPubSubLimits},
	"broker.googlepubsub.expiration_ttl":             {Min: int64(day), Max: int64(365 * day), Zero: "never expire", Why: whyPubSubLimits},
	"broker.googlepubsub.retry_min_backoff":          {Max: int64(600 * time.Second), Zero: "broker.delivery.min_backoff", Why: whyPubSubLimits},
	"broker.googlepubsub.retry_max_backoff":          {Max: int64(600 * time.Second), Zero: "broker.delivery.max_backoff", Why: whyPubSubLimits},
	"broker.googlepubsub.topic_retention_duration":   {Min: int64(10 * time.Minute), Max: int64(31 * day), Zero: "off", Why: whyPubSubLimits},

	"broker.delivery.max_deliveries":     {Min: 1, Max: 100, Why: "Pub/Sub's dead-letter policy allows at most 100 attempts"},
	"broker.delivery.min_backoff":        {Max: int64(configfile.MaxBackoff), Why: "config.MaxBackoff"},
	"broker.delivery.max_backoff":        {Max: int64(configfile.MaxBackoff), Why: "config.MaxBackoff"},
	"subscriber.parallelism":             {Min: 1, Max: MaxParallelism, Why: "config.MaxParallelism: each worker is a goroutine holding an event"},
	"subscriber.shutdown_timeout":        {Max: int64(time.Hour), Why: "a pod's termination waits no longer"},
	"broker.subscriber.parallelism":      {Min: 1, Max: MaxParallelism, Zero: "the top-level subscriber's", Why: "config.MaxParallelism: each worker is a goroutine holding an event"},
	"broker.subscriber.shutdown_timeout": {Max: int64(time.Hour), Zero: "the top-level subscriber's", Why: "a pod's termination waits no longer"},
	"subscriber.event_timeout":           {Min: int64(MinEventTimeout), Max: int64(MaxEventTimeout), Why: "config.MaxEventTimeout: RabbitMQ's default consumer_timeout closes the channel of a delivery unacked for 30m"},
	"broker.subscriber.event_timeout":    {Min: int64(MinEventTimeout), Max: int64(MaxEventTimeout), Zero: "the top-level subscriber's", Why: "config.MaxEventTimeout: RabbitMQ's default consumer_timeout closes the channel of a delivery unacked for 30m"},
}
