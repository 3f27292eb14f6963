package kubelet

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// The simulated cluster's addresses. A cluster's node IPAM (kube-controller-
// manager's --cluster-cidr and --node-cidr-mask-size) gives each node a
// spec.podCIDR of that size from the cluster's Pod range, and the node's
// Pods get their addresses from it. Here the simulated kubelet registers
// each node with its podCIDR already set, as a cloud's IPAM does before a
// kubelet starts: node i gets the i-th /23 of 10.128.0.0/9.
const (
	// ClusterCIDR is the range every Pod address of a lab comes from.
	ClusterCIDR = "10.128.0.0/9"
	// NodeCIDRMaskSize is the size of each node's spec.podCIDR: a /23,
	// 512 addresses, of which 509 go to Pods (not the network's, the
	// gateway's .1, nor the broadcast address), more than the 400 Pods a
	// simulated node holds by default.
	NodeCIDRMaskSize = 23
	// MaxNodes is the most nodes the cluster's range has a podCIDR for:
	// 2^(23-9) = 16,384 (Kubernetes supports clusters of 5,000 nodes).
	MaxNodes = 1 << (NodeCIDRMaskSize - 9)
	// MaxPodsPerNode is the most Pods a node's podCIDR has addresses for:
	// a node's "pods" capacity may not be larger.
	MaxPodsPerNode = 1<<(32-NodeCIDRMaskSize) - 3
)

// clusterPrefix is ClusterCIDR, parsed.
var clusterPrefix = netip.MustParsePrefix(ClusterCIDR)

// podCIDR is the spec.podCIDR of the node of that index (1-based, at most
// MaxNodes): 10.128.0.0/23 for the first, 10.128.2.0/23 for the second...
func podCIDR(index int) (netip.Prefix, error) {
	if index < 1 || index > MaxNodes {
		return netip.Prefix{}, fmt.Errorf("node %d: the cluster's Pod range %s has a /%d for nodes 1 to %d only", index, ClusterCIDR, NodeCIDRMaskSize, MaxNodes)
	}
	base := clusterPrefix.Addr().As4()
	v := binary.BigEndian.Uint32(base[:]) + uint32(index-1)<<(32-NodeCIDRMaskSize)
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], v)
	return netip.PrefixFrom(netip.AddrFrom4(a), NodeCIDRMaskSize), nil
}

// hostAddr is the host-th address of an IPv4 prefix: hostAddr(10.128.2.0/23, 2)
// is 10.128.2.2.
func hostAddr(p netip.Prefix, host int) netip.Addr {
	base := p.Masked().Addr().As4()
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(base[:])+uint32(host))
	return netip.AddrFrom4(a)
}

// podHosts is how many addresses of a podCIDR go to Pods: its size but the
// network's, the gateway's and the broadcast address.
func podHosts(p netip.Prefix) int { return 1<<(32-p.Bits()) - 3 }

// nodeIP is the address of the node of that index: 10.89.0.1 for the
// first, on through 10.89.64.0 for node MaxNodes.
func nodeIP(index int) string {
	return fmt.Sprintf("10.89.%d.%d", index/256, index%256)
}
