package capability

import "testing"

func TestMatchConstraints(t *testing.T) {
	wl := map[string]string{"region": "eu-central"}
	cases := []struct {
		name       string
		key, value string
		attrs      map[string]string
		ok         bool
		detail     string
	}{
		{"equal", "environment", "prod", map[string]string{"environment": "prod"}, true, "environment prod"},
		{"not equal", "environment", "prod", map[string]string{"environment": "dev"}, false, "environment dev != prod"},
		{"missing", "environment", "prod", nil, false, "environment missing, need prod"},
		{"required truthy", "encryption", "required", map[string]string{"encryption": "aes256"}, true, "encryption aes256"},
		{"required off", "encryption", "required", map[string]string{"encryption": "off"}, false, "encryption required but is off"},
		{"same as workload", "region", "same-as-workload", map[string]string{"region": "eu-central"}, true, "region eu-central = workload region"},
		{"other region", "region", "same-as-workload", map[string]string{"region": "eu-west"}, false, "region eu-west != workload region eu-central"},
		{"min equal", "min_capacity_gb", "500", map[string]string{"capacity_gb": "500"}, true, "capacity_gb 500 >= min_capacity_gb 500"},
		{"min below", "min_capacity_gb", "500", map[string]string{"capacity_gb": "499.5"}, false, "capacity_gb 499.5 < min_capacity_gb 500"},
		{"min as a quantity in GB", "min_capacity_gb", "200", map[string]string{"capacity_gb": "200Gi"}, true, "capacity_gb 200Gi (214.75 GB) >= min_capacity_gb 200"},
		{"min as a decimal quantity", "min_capacity_gb", "200", map[string]string{"capacity_gb": "199G"}, false, "capacity_gb 199G (199 GB) < min_capacity_gb 200"},
		{"min as a quantity in Ti", "min_capacity_gb", "1000", map[string]string{"capacity_gb": "1Ti"}, true, "capacity_gb 1Ti (1099.51 GB) >= min_capacity_gb 1000"},
		{"min as a quantity in Mi", "min_capacity_gb", "1", map[string]string{"capacity_gb": "500Mi"}, false, "capacity_gb 500Mi (0.52 GB) < min_capacity_gb 1"},
		{"a quantity only for an attribute in GB", "min_replicas", "2", map[string]string{"replicas": "2Gi"}, false, `replicas "2Gi" is not a number, need >= 2`},
		{"not a quantity", "min_capacity_gb", "1", map[string]string{"capacity_gb": "lots"}, false, `capacity_gb "lots" is not a number, need >= 1`},
		{"min bad constraint", "min_capacity_gb", "big", map[string]string{"capacity_gb": "1"}, false, `constraint min_capacity_gb: "big" is not a number`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := MatchConstraints(map[string]string{tc.key: tc.value}, tc.attrs, wl)
			if len(got) != 1 || got[0].OK != tc.ok || got[0].Detail != tc.detail {
				t.Fatalf("got: %+v want: ok=%v detail=%q", got, tc.ok, tc.detail)
			}
		})
	}
}
