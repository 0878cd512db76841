/**
 * A bucket policy the server refuses to store, with a message for the client (S3 answers these
 * with `400 MalformedPolicy`: https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketPolicy.html).
 */
export class MalformedPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedPolicyError';
  }
}
