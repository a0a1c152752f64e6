//go:build tools

package main

import (
	_ "github.com/gophercloud/gophercloud/v2"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/hashicorp/terraform-plugin-framework/provider"
	_ "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/hashicorp/terraform-plugin-go/tfprotov6"
	_ "github.com/hashicorp/terraform-plugin-log/tflog"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/stmcginnis/gofish"
)
