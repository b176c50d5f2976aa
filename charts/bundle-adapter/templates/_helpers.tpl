{{/*
Names and labels, as hyperfleet-adapter's chart computes them.
*/}}
{{- define "bundle-adapter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "bundle-adapter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "bundle-adapter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "bundle-adapter.labels" -}}
helm.sh/chart: {{ include "bundle-adapter.chart" . }}
{{ include "bundle-adapter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "bundle-adapter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "bundle-adapter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "bundle-adapter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "bundle-adapter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "bundle-adapter.clusterScopedName" -}}
{{- printf "%s-%s" (include "bundle-adapter.fullname" .) .Release.Namespace | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "bundle-adapter.image" -}}
{{- $repo := required "image.repository must be set" .Values.image.repository -}}
{{- if .Values.image.registry }}{{ $repo = printf "%s/%s" .Values.image.registry $repo }}{{ end -}}
{{- if .Values.image.digest -}}
{{ $repo }}@{{ .Values.image.digest }}
{{- else -}}
{{ $repo }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
ConfigMap names: the chart's own, or an existing one (create: false).
*/}}
{{- define "bundle-adapter.adapterConfigMapName" -}}
{{- if and (not .Values.adapterConfig.create) .Values.adapterConfig.configMapName }}
{{- .Values.adapterConfig.configMapName }}
{{- else }}
{{- printf "%s-config" (include "bundle-adapter.fullname" .) }}
{{- end }}
{{- end }}

{{- define "bundle-adapter.adapterTaskConfigMapName" -}}
{{- if and (not .Values.adapterTaskConfig.create) .Values.adapterTaskConfig.configMapName }}
{{- .Values.adapterTaskConfig.configMapName }}
{{- else }}
{{- printf "%s-task" (include "bundle-adapter.fullname" .) }}
{{- end }}
{{- end }}

{{- define "bundle-adapter.brokerConfigMapName" -}}
{{- if and (not .Values.broker.create) .Values.broker.configMapName }}
{{- .Values.broker.configMapName }}
{{- else }}
{{- printf "%s-broker" (include "bundle-adapter.fullname" .) }}
{{- end }}
{{- end }}

{{/*
effectiveFiles: the chart files the ConfigMap of .Values.<section> holds,
as JSON: <section>.files when given; none when <section>.yaml is given
(yaml means that content, as in hyperfleet-adapter's chart, whose defaults
hold no files: hyperfleet-infra sets yaml with --set-file); otherwise, with
no files, yaml or external, <section>.defaultFiles (the onprem example).
yaml together with files fails, as there.
Call with (dict "root" $ "section" "adapterTaskConfig").
*/}}
{{- define "bundle-adapter.effectiveFiles" -}}
{{- $v := index .root.Values .section -}}
{{- $files := $v.files | default dict -}}
{{- if and $v.yaml $files -}}
{{- fail (printf "Cannot set .Values.%s.yaml with .Values.%s.files - these modes are mutually exclusive." .section .section) -}}
{{- end -}}
{{- if not (or $v.yaml $files $v.external) -}}
{{- $files = $v.defaultFiles | default dict -}}
{{- end -}}
{{- $files | toJson -}}
{{- end }}

{{/*
grantsRBAC: "true" when rbac.create grants something (rbac.resources or
rbac.rules given): the Role/ClusterRole is rendered and the service-account
token mounted (the kubernetes transport's in-cluster config needs it).
rbac.create with nothing to grant (a Maestro-only adapter, as
hyperfleet-infra's adapter2) renders no empty role and mounts no token.
*/}}
{{- define "bundle-adapter.grantsRBAC" -}}
{{- if and .Values.rbac.create (or .Values.rbac.resources .Values.rbac.rules) }}true{{ end -}}
{{- end }}

{{- define "bundle-adapter.automountToken" -}}
{{- if or .Values.serviceAccount.automountToken (include "bundle-adapter.grantsRBAC" .) }}true{{ else }}false{{ end -}}
{{- end }}

{{/*
taskConfigKey maps a file key of adapterTaskConfig.files to a ConfigMap key:
a ConfigMap key cannot hold "/", so "bundles/x.yaml" is stored as
"bundles__x.yaml" and mounted back at bundles/x.yaml (see the deployment's
adapter-config volume).
*/}}
{{- define "bundle-adapter.taskConfigKey" -}}
{{- . | replace "/" "__" }}
{{- end }}

{{/*
validate fails on values that cannot work, with the message
hyperfleet-adapter's chart gives where it has the same check.
*/}}
{{- define "bundle-adapter.validate" -}}
{{- with .Values.adapterConfig }}
{{- if .create }}
{{- if not (or .yaml .files .defaultFiles) }}
{{- fail "When .Values.adapterConfig.create is true, either .Values.adapterConfig.yaml or .Values.adapterConfig.files must be provided." }}
{{- end }}
{{- else if not .configMapName }}
{{- fail "Either .Values.adapterConfig.create must be true or a non-blank .Values.adapterConfig.configMapName must be provided." }}
{{- end }}
{{- if and .hyperfleetApi .hyperfleetApi.auth .hyperfleetApi.auth.enabled (not (hasPrefix "/" .hyperfleetApi.auth.tokenPath)) }}
{{- fail "adapterConfig.hyperfleetApi.auth.tokenPath must be an absolute path (start with /)" }}
{{- end }}
{{- end }}
{{- with .Values.adapterTaskConfig }}
{{- if .create }}
{{- if and .yaml .external }}
{{- fail "Cannot set .Values.adapterTaskConfig.yaml with .Values.adapterTaskConfig.external - these modes are mutually exclusive." }}
{{- end }}
{{- if not (or .yaml .files .external .defaultFiles) }}
{{- fail "When .Values.adapterTaskConfig.create is true, at least one of .Values.adapterTaskConfig.yaml, .Values.adapterTaskConfig.files, or .Values.adapterTaskConfig.external must be provided." }}
{{- end }}
{{- else if not .configMapName }}
{{- fail "Either .Values.adapterTaskConfig.create must be true or a non-blank .Values.adapterTaskConfig.configMapName must be provided." }}
{{- end }}
{{- end }}
{{- range $key, $path := include "bundle-adapter.effectiveFiles" (dict "root" $ "section" "adapterTaskConfig") | fromJson }}
{{- if not ($.Files.Get $path) }}
{{- fail (printf "adapterTaskConfig.files.%s: file not found or empty at path '%s'" $key $path) }}
{{- end }}
{{- end }}
{{- range $key, $path := include "bundle-adapter.effectiveFiles" (dict "root" $ "section" "adapterConfig") | fromJson }}
{{- if not ($.Files.Get $path) }}
{{- fail (printf "adapterConfig.files.%s: file not found or empty at path '%s'" $key $path) }}
{{- end }}
{{- end }}
{{- if and (not .Values.broker.create) (not .Values.broker.configMapName) }}
{{- fail "Either .Values.broker.create must be true or a non-blank .Values.broker.configMapName must be provided." }}
{{- end }}
{{- if and .Values.broker.create (not .Values.broker.yaml) }}
{{- $type := required "broker.type must be set to one of: googlepubsub, rabbitmq" .Values.broker.type }}
{{- if eq $type "rabbitmq" }}
{{- if not (or .Values.broker.rabbitmq.url (and .Values.broker.rabbitmq.urlFromSecret .Values.broker.rabbitmq.urlFromSecret.name)) }}
{{- fail "broker.rabbitmq.url (or broker.rabbitmq.urlFromSecret.name) is required when broker type is rabbitmq" }}
{{- end }}
{{- if not .Values.broker.rabbitmq.exchange }}
{{- fail "broker.rabbitmq.exchange is required when broker type is rabbitmq" }}
{{- end }}
{{- else if eq $type "googlepubsub" }}
{{- if not .Values.broker.googlepubsub.projectId }}
{{- fail "broker.googlepubsub.projectId is required when broker type is googlepubsub" }}
{{- end }}
{{- else }}
{{- fail (printf "broker.type must be one of googlepubsub, rabbitmq (got %q)" $type) }}
{{- end }}
{{- end }}
{{- if .Values.podDisruptionBudget.enabled }}
{{- if and .Values.podDisruptionBudget.minAvailable .Values.podDisruptionBudget.maxUnavailable }}
{{- fail "podDisruptionBudget: cannot set both minAvailable and maxUnavailable" }}
{{- end }}
{{- if not (or .Values.podDisruptionBudget.minAvailable .Values.podDisruptionBudget.maxUnavailable) }}
{{- fail "podDisruptionBudget.enabled is true but neither minAvailable nor maxUnavailable is set" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
renderProbe: httpGet (default path and the http port), tcpSocket or exec,
and the timing fields, as hyperfleet-adapter's chart renders probes.
*/}}
{{- define "bundle-adapter.renderProbe" -}}
{{- $probe := .probe -}}
{{- if $probe.tcpSocket }}
tcpSocket:
  port: {{ $probe.tcpSocket.port }}
{{- else if $probe.exec }}
exec:
  command:
    {{- toYaml $probe.exec.command | nindent 4 }}
{{- else }}
{{- $http := $probe.httpGet | default dict }}
httpGet:
  path: {{ $http.path | default .defaultPath }}
  port: {{ $http.port | default "http" }}
  {{- with $http.scheme }}
  scheme: {{ . }}
  {{- end }}
{{- end }}
{{- range $k := list "initialDelaySeconds" "periodSeconds" "timeoutSeconds" "failureThreshold" "successThreshold" }}
{{- with index $probe $k }}
{{ $k }}: {{ . }}
{{- end }}
{{- end }}
{{- end }}

{{/*
apiGroup of a resource of rbac.resources (hyperfleet-adapter's mapping).
*/}}
{{- define "bundle-adapter.apiGroup" -}}
{{- if has . (list "deployments" "statefulsets" "daemonsets" "replicasets") -}}
apps
{{- else if has . (list "jobs" "cronjobs" "jobs/status") -}}
batch
{{- else if has . (list "roles" "rolebindings" "clusterroles" "clusterrolebindings") -}}
rbac.authorization.k8s.io
{{- end -}}
{{- end }}

{{/*
The rules of the adapter's Role or ClusterRole: the kubernetes transport's
verbs on each of rbac.resources (a shadow release reads only: get, list),
then rbac.rules as given ([] when none).
*/}}
{{- define "bundle-adapter.rbacRules" -}}
{{- range .Values.rbac.resources }}
  - apiGroups: ["{{ include "bundle-adapter.apiGroup" . }}"]
    resources: ["{{ . }}"]
    verbs: {{ if $.Values.shadow }}["get", "list"]{{ else }}["get", "list", "create", "patch", "delete"]{{ end }}
{{- end }}
{{- with .Values.rbac.rules }}
{{- toYaml . | nindent 2 }}
{{- end }}
{{- if not (or .Values.rbac.resources .Values.rbac.rules) }} []{{ end }}
{{- end }}
