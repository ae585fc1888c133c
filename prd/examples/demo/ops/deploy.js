// Uploads the built UI to the bucket. The key below is planted for the demo: it is AWS's documented
// example access key id (not a real credential), and the security-agent must catch it.
const region = "eu-west-1";
const accessKeyId = "AKIAIOSFODNN7EXAMPLE";

export function deployTarget(bucket) {
  return { bucket, region, accessKeyId };
}
