package controlplane

// AuditPolicy is kube-apiserver's audit policy in a lab: every write, with
// its response (managedFields left out), so that the timeline can name who
// deleted an object, which its watch does not say, and date each write
// with the time the apiserver answered it: the response carries the
// write's revision, which the watch's line carries too. Leases (heartbeats)
// and reviews (no write) are not logged, nor are reads.
const AuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted, Panic]
omitManagedFields: true
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources: [leases]
  - group: authentication.k8s.io
  - group: authorization.k8s.io
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`
