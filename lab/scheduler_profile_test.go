package lab

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// TestSchedulerSpreadsByHostnameWithoutZones: a lab without zones has
// kube-scheduler spread Pods by Kubernetes' default constraint of hostname
// alone (its default of zone places nothing differently there, and costs
// it a count of every Pod per Pod placed); with zones, Kubernetes' own
// defaults. The configuration is read and validated as kube-scheduler
// reads it.
func TestSchedulerSpreadsByHostnameWithoutZones(t *testing.T) {
	hostname := []corev1.TopologySpreadConstraint{{MaxSkew: 3, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway}}
	for _, tc := range []struct {
		zones       int
		defaulting  config.PodTopologySpreadConstraintsDefaulting
		constraints []corev1.TopologySpreadConstraint
	}{
		{0, config.ListDefaulting, hostname},
		{3, config.SystemDefaulting, nil},
	} {
		t.Run(fmt.Sprintf("%d zones", tc.zones), func(t *testing.T) {
			data := fmt.Sprintf("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n%s", schedulerProfile(tc.zones))
			obj, _, err := scheme.Codecs.UniversalDecoder().Decode([]byte(data), nil, nil)
			if err != nil {
				t.Fatalf("kube-scheduler cannot read its configuration: %v\n%s", err, data)
			}
			cfg := obj.(*config.KubeSchedulerConfiguration)
			if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
				t.Fatalf("kube-scheduler refuses its configuration: %v\n%s", err, data)
			}
			var args *config.PodTopologySpreadArgs
			for _, pc := range cfg.Profiles[0].PluginConfig {
				if a, ok := pc.Args.(*config.PodTopologySpreadArgs); ok {
					args = a
				}
			}
			if args == nil {
				t.Fatal("no PodTopologySpread arguments in the scheduler's profile")
			}
			if args.DefaultingType != tc.defaulting {
				t.Errorf("defaultingType: got %s, want %s", args.DefaultingType, tc.defaulting)
			}
			if diff := cmp.Diff(tc.constraints, args.DefaultConstraints); diff != "" {
				t.Errorf("defaultConstraints (-want +got):\n%s", diff)
			}
		})
	}
}
