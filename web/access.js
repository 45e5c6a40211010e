// Who may continue a run in this browser (docs/online.md "Who may
// continue"): the key the server gave this browser and the resume code it
// showed, kept in localStorage per participant id; the code shown after the
// consent; the page that asks for the code when the id was started in
// another browser. Its texts in the seven languages of web/i18n.js.

import { el } from "./dom.js";

const TEXT = {
  en: {
    code_title: "Your resume code",
    code_keep: "Write it down: with it you can continue on another device.",
    resume_title: "This study was started in another browser",
    resume_code: "To continue here, enter the resume code you were shown after the consent.",
    resume_other: "Please continue in the browser where you started, or open the study again from the platform's page (the same link).",
    code_label: "Resume code",
    go: "Continue",
    wrong: "This code does not continue this study. Please check it and try again.",
  },
  de: {
    code_title: "Ihr Fortsetzungscode",
    code_keep: "Notieren Sie ihn: Damit können Sie auf einem anderen Gerät weitermachen.",
    resume_title: "Diese Studie wurde in einem anderen Browser begonnen",
    resume_code: "Um hier weiterzumachen, geben Sie den Fortsetzungscode ein, der Ihnen nach der Einwilligung angezeigt wurde.",
    resume_other: "Bitte machen Sie in dem Browser weiter, in dem Sie begonnen haben, oder öffnen Sie die Studie erneut über die Seite der Plattform (derselbe Link).",
    code_label: "Fortsetzungscode",
    go: "Weiter",
    wrong: "Mit diesem Code lässt sich die Studie nicht fortsetzen. Bitte prüfen Sie ihn und versuchen Sie es erneut.",
  },
  fr: {
    code_title: "Votre code de reprise",
    code_keep: "Notez-le : il vous permet de continuer sur un autre appareil.",
    resume_title: "Cette étude a été commencée dans un autre navigateur",
    resume_code: "Pour continuer ici, saisissez le code de reprise qui vous a été affiché après le consentement.",
    resume_other: "Veuillez continuer dans le navigateur où vous avez commencé, ou rouvrir l'étude depuis la page de la plateforme (le même lien).",
    code_label: "Code de reprise",
    go: "Continuer",
    wrong: "Ce code ne permet pas de reprendre cette étude. Vérifiez-le et réessayez.",
  },
  es: {
    code_title: "Su código de reanudación",
    code_keep: "Anótelo: con él puede continuar en otro dispositivo.",
    resume_title: "Este estudio se inició en otro navegador",
    resume_code: "Para continuar aquí, introduzca el código de reanudación que se le mostró después del consentimiento.",
    resume_other: "Continúe en el navegador donde empezó, o vuelva a abrir el estudio desde la página de la plataforma (el mismo enlace).",
    code_label: "Código de reanudación",
    go: "Continuar",
    wrong: "Este código no permite continuar este estudio. Compruébelo e inténtelo de nuevo.",
  },
  "zh-Hans": {
    code_title: "您的续答码",
    code_keep: "请记下：凭此码可在其他设备上继续。",
    resume_title: "本研究已在另一个浏览器中开始",
    resume_code: "要在此继续，请输入同意之后向您显示的续答码。",
    resume_other: "请在您开始时使用的浏览器中继续，或从平台页面重新打开本研究（同一链接）。",
    code_label: "续答码",
    go: "继续",
    wrong: "此代码无法继续本研究。请检查后重试。",
  },
  ja: {
    code_title: "再開コード",
    code_keep: "控えておいてください。別の端末で続けるときに使います。",
    resume_title: "この研究は別のブラウザで開始されています",
    resume_code: "ここで続けるには、同意の後に表示された再開コードを入力してください。",
    resume_other: "開始したブラウザで続けるか、プラットフォームのページから（同じリンクで）研究を開き直してください。",
    code_label: "再開コード",
    go: "続ける",
    wrong: "このコードではこの研究を再開できません。確認してもう一度お試しください。",
  },
  ar: {
    code_title: "رمز المتابعة الخاص بك",
    code_keep: "دوّنه: تستطيع به المتابعة على جهاز آخر.",
    resume_title: "بدأت هذه الدراسة في متصفح آخر",
    resume_code: "للمتابعة هنا، أدخل رمز المتابعة الذي عُرض عليك بعد الموافقة.",
    resume_other: "يُرجى المتابعة في المتصفح الذي بدأت فيه، أو افتح الدراسة مجددًا من صفحة المنصة (الرابط نفسه).",
    code_label: "رمز المتابعة",
    go: "متابعة",
    wrong: "لا يتيح هذا الرمز متابعة هذه الدراسة. يُرجى التحقق منه والمحاولة مرة أخرى.",
  },
};

function text(key) {
  const tag = document.documentElement.lang || "en";
  const t = TEXT[tag] || TEXT[tag.split("-")[0]] || TEXT.en;
  return t[key] || TEXT.en[key];
}

function storageKey(ext) {
  return "simlab:" + ext;
}

// What this browser keeps for participant id ext: {key, code}.
export function kept(ext) {
  try {
    return JSON.parse(localStorage.getItem(storageKey(ext)) || "{}") || {};
  } catch (e) {
    return {};
  }
}

// Keeps the key and code of a reply (those it carries).
export function keep(ext, reply) {
  if (!reply || (!reply.key && !reply.resume_code)) return;
  const k = kept(ext);
  if (reply.key) k.key = reply.key;
  if (reply.resume_code) k.code = reply.resume_code;
  try {
    localStorage.setItem(storageKey(ext), JSON.stringify(k));
  } catch (e) {
    // private modes: kept for this page only
  }
}

// The notice of the resume code, shown above the screen after the consent.
export function codeNotice(code) {
  return el("div", { class: "resume-code", role: "note" }, el("span", { class: "muted" }, text("code_title")), el("strong", { class: "resume-value", dir: "ltr" }, code), el("span", {}, text("code_keep")));
}

// The page of an id started in another browser: mode "code" asks for the
// resume code (go(code) tries it), the others say where to continue.
export function resumePage(mode, wrong, go) {
  const body = [el("h1", {}, text("resume_title"))];
  if (mode !== "code") {
    body.push(el("p", { class: "muted" }, text("resume_other")));
    return el("div", { class: "content message" }, body);
  }
  const input = el("input", { type: "text", class: "resume-input", id: "resume-code", autocomplete: "off", spellcheck: "false", dir: "ltr", maxlength: "20" });
  const submit = (ev) => {
    ev.preventDefault();
    if (input.value.trim()) go(input.value.trim());
  };
  body.push(el("p", { class: "muted" }, text("resume_code")));
  if (wrong) body.push(el("p", { class: "resume-wrong", role: "alert" }, text("wrong")));
  body.push(el("form", { class: "resume-form", onsubmit: submit }, el("label", { for: "resume-code" }, text("code_label")), input, el("button", { class: "primary", type: "submit" }, text("go"))));
  return el("div", { class: "content message" }, body);
}
