/** Value of the `Server` header on S3 responses. */
export const SERVER_NAME = 'svc';
