/**
 * Share links: presigned GET URLs (SigV4 query authentication,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html), path style, against the S3
 * endpoint the browser can reach (SVC_SERVER_URL, else the API listener's address: the Host is signed, so the link
 * must name the host the downloader will use, REFERENCE.md §3.2 point 1). The AWS SDK's presigner does the signing;
 * it is loaded on first use, so a console that never shares does not pay for it.
 */

/** What a link is made from. */
export interface PresignInput {
  endpoint: string;
  region: string;
  credentials: { accessKey: string; secretKey: string };
  bucket: string;
  key: string;
  expiresSeconds: number;
  now: Date;
}

/** A presigned GET URL for one object. */
export async function presignGet(input: PresignInput): Promise<string> {
  const [{ S3Client, GetObjectCommand }, { getSignedUrl }] = await Promise.all([
    import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner'),
  ]);
  const client = new S3Client({
    endpoint: input.endpoint, region: input.region, forcePathStyle: true,
    credentials: { accessKeyId: input.credentials.accessKey, secretAccessKey: input.credentials.secretKey },
  });
  try {
    return await getSignedUrl(client, new GetObjectCommand({ Bucket: input.bucket, Key: input.key }), {
      expiresIn: input.expiresSeconds, signingDate: input.now,
    });
  } finally {
    client.destroy();
  }
}
