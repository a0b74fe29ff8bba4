# If we need unified behaviour specific to operators, this folder is the place.

# It seems that our previous origin-release jq based replacement is suppose to be done
# with `oc adm release new` so it might drop this target.
#origin-release:
#	$(error Not implemented.)
#.PHONY: origin-release
