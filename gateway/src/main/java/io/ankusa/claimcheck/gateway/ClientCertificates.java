package io.ankusa.claimcheck.gateway;

import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;

/**
 * The grant of a request's client certificate (mutual TLS): the subject CN of the certificate the
 * TLS handshake verified against the trust store, looked up in the tokens file's {@code cn:} lines;
 * stateless.
 *
 * <p>Only a certificate the handshake verified reaches a request ({@code gateway.tls.client.auth}
 * {@code want} or {@code need} with {@code gateway.tls.truststore.path}); with {@code none} no
 * client certificate is asked for and none maps.
 */
final class ClientCertificates {

  private ClientCertificates() {}

  /** The grant of {@code request}'s verified client certificate, or null when none maps. */
  static Grant grant(Request request, Tokens tokens) {
    if (!(request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE)
        instanceof EndPoint.SslSessionData ssl)) {
      return null;
    }
    X509Certificate[] chain = ssl.peerCertificates();
    if (chain == null || chain.length == 0) {
      return null;
    }
    String cn = commonName(chain[0]);
    return cn == null ? null : tokens.lookupCn(cn);
  }

  /** The subject CN of {@code cert} (the last, most specific, when there are several), or null. */
  static String commonName(X509Certificate cert) {
    try {
      String found = null;
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          found = rdn.getValue().toString();
        }
      }
      return found;
    } catch (InvalidNameException e) {
      return null;
    }
  }
}
