// Package redis is the seed's example of why operators exist: a Redis
// Cluster is more than a StatefulSet. The operator keeps the StatefulSet,
// the Services and the slot map of a RedisCluster, grows and shrinks it in
// a safe order, runs the backups a RedisBackup asks for as Jobs, and uses a
// finalizer to clean up what owner references cannot. No Redis process
// runs in the lab: the point is the control loop, not Redis.
//
// +kubebuilder:object:generate=true
// +groupName=samples.crdlab.dev
// +versionName=v1alpha1
package redis
