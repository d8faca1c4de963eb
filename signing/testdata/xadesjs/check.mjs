// Independent XAdES check for einvoice's tests, with xadesjs:
//   node check.mjs verify FILE.xml                      prints "valid" (exit 0) or "invalid: why" (exit 1)
//
// xmldsigjs's enveloped-signature transform removes only signatures that are children of the document
// element, while UBL places the signature deep inside ext:UBLExtensions. The check therefore removes
// the signature itself (as the transform is defined to) and gives xadesjs that content to verify the
// document reference against; the SignedProperties reference, the XAdES properties and the signature
// value are verified by xadesjs as they are.
//   node check.mjs sign IN.xml KEY.pk8 CERT.der OUT.xml  signs IN with an RSA key, enveloped, and moves the
//                                                        signature into the UBL extension placeholder
import { readFileSync, writeFileSync } from "node:fs";
import * as xmldom from "@xmldom/xmldom";
import * as xadesjs from "xadesjs";
import xpath from "xpath";

xadesjs.setNodeDependencies({
  XMLSerializer: xmldom.XMLSerializer, DOMParser: xmldom.DOMParser, DOMImplementation: xmldom.DOMImplementation, xpath,
});
xadesjs.Application.setEngine("NodeJS", globalThis.crypto);

const DS = "http://www.w3.org/2000/09/xmldsig#";
const XADES = "http://uri.etsi.org/01903/v1.3.2#";
const [cmd, ...args] = process.argv.slice(2);

async function verify(file) {
  const doc = xadesjs.Parse(readFileSync(file, "utf8"));
  const sigs = doc.getElementsByTagNameNS(DS, "Signature");
  if (sigs.length === 0) throw new Error("no signature");
  const signed = new xadesjs.SignedXml(doc);
  signed.LoadXml(sigs[0]);
  if (doc.getElementsByTagNameNS(XADES, "SignedProperties").length !== 1) throw new Error("no XAdES SignedProperties");
  if (!signed.SignedProperties || !signed.SignedProperties.SignedSignatureProperties.SigningTime.Value) {
    throw new Error("no signing time");
  }
  const content = doc.documentElement.cloneNode(true);
  const inClone = content.getElementsByTagNameNS(DS, "Signature")[0];
  inClone.parentNode.removeChild(inClone);
  if (!(await signed.Verify({ content }))) throw new Error("signature does not verify");
}

async function sign(input, keyFile, certFile, output) {
  const doc = xadesjs.Parse(readFileSync(input, "utf8"));
  const certDer = readFileSync(certFile);
  const key = await globalThis.crypto.subtle.importKey("pkcs8", readFileSync(keyFile),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  const cert = certDer.toString("base64");
  const signed = new xadesjs.SignedXml();
  await signed.Sign({ name: "RSASSA-PKCS1-v1_5" }, key, doc, {
    x509: [cert],
    signingCertificate: cert,
    references: [{ hash: "SHA-256", transforms: ["enveloped", "exc-c14n"] }],
  });
  const sigNode = signed.XmlSignature.GetXml();
  const place = doc.getElementsByTagNameNS("urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2", "SignatureInformation")[0];
  if (!place) throw new Error("no UBL signature placeholder");
  place.appendChild(sigNode);
  writeFileSync(output, new xmldom.XMLSerializer().serializeToString(doc));
}

try {
  if (cmd === "verify") {
    await verify(args[0]);
    console.log("valid");
  } else if (cmd === "sign") {
    await sign(...args);
    console.log("signed");
  } else {
    throw new Error("usage: verify FILE | sign IN KEY CERT OUT");
  }
} catch (e) {
  console.log("invalid: " + e.message);
  process.exit(1);
}
