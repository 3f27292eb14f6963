package redis

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the API group and version of RedisCluster and RedisBackup.
var GroupVersion = schema.GroupVersion{Group: "samples.crdlab.dev", Version: "v1alpha1"}

// SchemeBuilder registers RedisCluster and RedisBackup with a scheme.
var SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

// AddToScheme adds RedisCluster and RedisBackup to a scheme.
var AddToScheme = SchemeBuilder.AddToScheme

func init() {
	SchemeBuilder.Register(&RedisCluster{}, &RedisClusterList{}, &RedisBackup{}, &RedisBackupList{})
}

// RedisClusterSpec is the cluster the user wants.
//
// +kubebuilder:validation:XValidation:rule="self.shards >= 3",message="a Redis Cluster needs at least 3 shards: with fewer masters, the cluster cannot keep a majority when one fails"
// +kubebuilder:validation:XValidation:rule="self.shards * (1 + self.replicasPerShard) <= 100",message="shards × (1 + replicasPerShard) must be at most 100 nodes"
type RedisClusterSpec struct {
	// Shards is the number of masters; the 16384 hash slots are spread
	// over them. Scaling the cluster (kubectl scale) changes this field.
	// +kubebuilder:validation:Maximum=100
	Shards int32 `json:"shards"`

	// ReplicasPerShard is the number of replicas of each master. It may not
	// change after creation: every Pod's shard follows from it.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="replicasPerShard is immutable: changing it would move every Pod to another shard; create a new cluster instead"
	// +optional
	ReplicasPerShard int32 `json:"replicasPerShard"`

	// Version is the Redis version; the image is redis:<version>. It may
	// not change after creation: this operator does not do upgrades.
	// +kubebuilder:default="7.2"
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]+(\.[0-9]+)?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="version is immutable: this operator does not upgrade a running cluster"
	// +optional
	Version string `json:"version,omitempty"`

	// Resources of each Redis container.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// Phases of a RedisCluster.
const (
	PhaseCreating    = "Creating"
	PhaseScalingUp   = "ScalingUp"
	PhaseScalingDown = "ScalingDown"
	PhaseReady       = "Ready"
	PhaseDegraded    = "Degraded"
	PhaseDeleting    = "Deleting"
)

// RedisClusterStatus is what the operator observed.
type RedisClusterStatus struct {
	// ObservedGeneration is the generation of the spec the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Phase: Creating, ScalingUp, ScalingDown, Ready, Degraded or Deleting.
	// +optional
	Phase string `json:"phase,omitempty"`

	// Shards is the number of masters the slot map spreads the slots over.
	// +optional
	Shards int32 `json:"shards,omitempty"`

	// Nodes is the number of Redis Pods, masters and replicas.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`

	// ReadyNodes is the number of those Pods that are ready.
	// +optional
	ReadyNodes int32 `json:"readyNodes,omitempty"`

	// Selector selects the cluster's Pods (for the scale subresource).
	// +optional
	Selector string `json:"selector,omitempty"`

	// Conditions: Ready (every wanted node is ready and owns its slots).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RedisCluster is a sharded Redis Cluster: masters holding hash slots, each
// with replicas.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.shards,statuspath=.status.shards,selectorpath=.status.selector
// +kubebuilder:resource:shortName=redis,categories=all
// +kubebuilder:printcolumn:name="Shards",type=integer,JSONPath=`.spec.shards`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicasPerShard`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.nodes`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyNodes`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RedisCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RedisClusterSpec   `json:"spec"`
	Status RedisClusterStatus `json:"status,omitempty"`
}

// RedisClusterList is a list of RedisClusters.
//
// +kubebuilder:object:root=true
type RedisClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedisCluster `json:"items"`
}

// RedisBackupSpec names the cluster to back up.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a RedisBackup's spec is immutable: create another RedisBackup"
type RedisBackupSpec struct {
	// ClusterName is the RedisCluster, in the backup's namespace.
	// +kubebuilder:validation:MinLength=1
	ClusterName string `json:"clusterName"`
}

// Phases of a RedisBackup.
const (
	BackupPending   = "Pending"
	BackupRunning   = "Running"
	BackupSucceeded = "Succeeded"
	BackupFailed    = "Failed"
)

// RedisBackupStatus records how the backup went.
type RedisBackupStatus struct {
	// Phase: Pending (waiting for a Ready cluster), Running, Succeeded or
	// Failed.
	// +optional
	Phase string `json:"phase,omitempty"`

	// JobName is the Job that runs the backup.
	// +optional
	JobName string `json:"jobName,omitempty"`

	// Shards is the number of shards the backup covers.
	// +optional
	Shards int32 `json:"shards,omitempty"`

	// Location is where the backup's files would be.
	// +optional
	Location string `json:"location,omitempty"`

	// StartTime is when the Job started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the Job finished.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// Message explains the phase.
	// +optional
	Message string `json:"message,omitempty"`
}

// RedisBackup asks the operator for one backup of a RedisCluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=rb,categories=all
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.clusterName`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Location",type=string,JSONPath=`.status.location`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type RedisBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RedisBackupSpec   `json:"spec"`
	Status RedisBackupStatus `json:"status,omitempty"`
}

// RedisBackupList is a list of RedisBackups.
//
// +kubebuilder:object:root=true
type RedisBackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RedisBackup `json:"items"`
}
