// How mail leaves the building: an interface with one SMTP implementation (nodemailer).
// Every mail is written to the outbox first; a transport, when configured, delivers it.

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Files sent along (an invoice document's PDF). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

export interface MailTransport {
  deliver(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Loads nodemailer only when SMTP_URL is set: an emulator start should not pay for it. */
export async function smtpTransport(smtpUrl: string): Promise<MailTransport> {
  const { default: nodemailer } = await import('nodemailer');
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    async deliver(mail) {
      await transporter.sendMail(mail);
    },
    close() {
      transporter.close();
    },
  };
}
