// Package v1 holds the Guestbook API, webapp.example.com/v1.
// +kubebuilder:object:generate=true
// +groupName=webapp.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API's group and version.
	GroupVersion = schema.GroupVersion{Group: "webapp.example.com", Version: "v1"}
	// SchemeBuilder adds the API's types to a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// GuestbookSpec is the desired state of a Guestbook.
type GuestbookSpec struct {
	// Replicas is how many frontends run.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// Image is the frontend's image.
	// +optional
	Image string `json:"image,omitempty"`
}

// GuestbookStatus is the observed state of a Guestbook.
type GuestbookStatus struct {
	// ReadyReplicas is how many frontends are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// Guestbook runs a guestbook's frontends: a Deployment it owns.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Guestbook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GuestbookSpec   `json:"spec,omitempty"`
	Status GuestbookStatus `json:"status,omitempty"`
}

// GuestbookList is a list of Guestbooks.
// +kubebuilder:object:root=true
type GuestbookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Guestbook `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Guestbook{}, &GuestbookList{})
}
