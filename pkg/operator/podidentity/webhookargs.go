package podidentity

// WebhookArgs are the webhook command's flags for d: --pod-identity and the
// region pods get, or nothing while pod identity is off (the webhook then
// watches no ServiceAccounts at all).
func (d Decision) WebhookArgs() []string {
	if !d.Enabled {
		return nil
	}
	args := []string{"--pod-identity"}
	if d.Region != "" {
		args = append(args, "--aws-default-region="+d.Region)
	}
	return args
}
