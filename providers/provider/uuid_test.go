package provider

import "testing"

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"5f24aaaa-bbbb-cccc-dddd-eeeeffff0000": true,
		"5F24AAAA-BBBB-CCCC-DDDD-EEEEFFFF0000": true,
		"5f24aaaa-bbbb-cccc-dddd-eeeeffff000":  false,
		"5f24aaaa_bbbb-cccc-dddd-eeeeffff0000": false,
		"5f24aaaa-bbbb-cccc-dddd-eeeeffff000g": false,
		"":                                     false,
	} {
		if IsUUID(s) != want {
			t.Errorf("IsUUID(%q) = %v; want %v", s, !want, want)
		}
	}
}
