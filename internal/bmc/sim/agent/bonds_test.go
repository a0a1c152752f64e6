package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// bondedNetworkData is network_data.json with a bond of two links whose
// MACs are mac1 and mac2, and a VLAN on it.
func bondedNetworkData(mac1, mac2 string) string {
	return `{"links":[` +
		`{"id":"bond0","type":"bond","bond_mode":"802.3ad","bond_links":["eno1","eno2"],"bond_miimon":100,"bond_xmit_hash_policy":"layer3+4","ethernet_mac_address":"` + mac1 + `"},` +
		`{"id":"eno1","type":"phy","ethernet_mac_address":"` + mac1 + `"},` +
		`{"id":"eno2","type":"phy","ethernet_mac_address":"` + mac2 + `"},` +
		`{"id":"bond0.42","type":"vlan","vlan_id":42,"vlan_link":"bond0"}],` +
		`"networks":[{"id":"n","type":"ipv4","link":"bond0.42","ip_address":"192.0.2.10","netmask":"255.255.255.0"}],"services":[]}`
}

func writeImageWith(t *testing.T, url, sum, networkData string) map[string]any {
	params := writeImageParams(t, url, sum)
	cd := configDrive(t, map[string]string{"openstack/latest/network_data.json": networkData})
	params["step"].(map[string]any)["args"].(map[string]any)["configdrive"] = cd
	return params
}

// The agent checks the config drive's bonds as cloud-init would build
// them: a bond whose members are this machine's NICs by MAC is recorded
// with its mode, members and VLANs, and the image is written; a member
// whose MAC is no NIC of the machine fails write_image, naming the bond,
// the member and the MACs the machine has.
func TestWriteImageChecksBonds(t *testing.T) {
	img := []byte("QFI\xfb bonded")
	sum := sha256.Sum256(img)
	url := imageServer(t, img)

	t.Run("members are NICs", func(t *testing.T) {
		a, _, _, c := bootedAgent(t)
		done := c.run("deploy.execute_deploy_step", writeImageWith(t, url, hex.EncodeToString(sum[:]),
			bondedNetworkData("52:54:00:00:00:01", "52:54:00:00:00:02")))
		if done.Status != "SUCCEEDED" {
			t.Fatalf("write_image: %+v %+v", done, done.Error)
		}
		cd := a.Record().ConfigDrive
		if cd == nil || len(cd.Bonds) != 1 {
			t.Fatalf("config drive %+v", cd)
		}
		b := cd.Bonds[0]
		if b.ID != "bond0" || b.Mode != "802.3ad" || b.XmitHashPolicy != "layer3+4" || b.Miimon != float64(100) ||
			!slices.Equal(b.MemberMACs, []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}) || !slices.Equal(b.VLANs, []string{"bond0.42"}) {
			t.Errorf("bond %+v", b)
		}
	})
	t.Run("member is no NIC", func(t *testing.T) {
		_, _, _, c := bootedAgent(t)
		done := c.run("deploy.execute_deploy_step", writeImageWith(t, url, hex.EncodeToString(sum[:]),
			bondedNetworkData("52:54:00:00:00:01", "52:54:00:00:00:99")))
		if done.Status != "FAILED" || done.Error == nil || !strings.Contains(done.Error.Details,
			`bond "bond0": member "eno2" has MAC 52:54:00:00:00:99, which is none of this machine's NICs (52:54:00:00:00:01, 52:54:00:00:00:02)`) {
			t.Fatalf("want the bond refused, got %+v %+v", done, done.Error)
		}
	})
}
